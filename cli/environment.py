"""The environment variables that send a command to a ragent server: read as the defaults of --server and --api-key
(`cli.parser`) and named in the messages about them (`cli.remote`), which has the client the parser loads only when
it is used."""

SERVER_ENV, API_KEY_ENV = "RAGENT_SERVER", "RAGENT_API_KEY"
