"""The deterministic extraction rules, by bucket and field name: one module per family of documents."""
