"""What every layer shares: the errors a user reads, the settings from the environment, the data model of
documents, chunks and annotation rows, and scopes. It imports no project package, so any package may import it."""
