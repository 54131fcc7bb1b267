from cli.entry import entry_point

entry_point()
