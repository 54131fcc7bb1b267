"""The Postgres store: documents, chunks and annotation rows (`documents`), buckets, vocabulary and field catalogs
(`catalog`), annotation queries (`annotations`), composed over one connection pool by `store.PostgresStore`; and the
embedded Postgres process (`embedded`). Imports `core` and nothing else of the project."""
