"""The local chat model: Qwen2.5-Coder weights from the package registry (`weights`), served by llama.cpp
(`xllamacpp`) in a process of its own per data folder (`server`), started and stopped by `launcher`."""
