"""The exit status of a command stopped by Ctrl-C: 130 (128 + SIGINT), as a shell reports it. Both the process's entry
(an interrupt while the command's modules load) and `main` (one during the command) exit with it; a module of its
own, importing nothing, so that the entry can name it before it imports anything else."""

INTERRUPTED = 130
