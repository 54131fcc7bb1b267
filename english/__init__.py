"""English as the questions, the contracts' labels and the answers write it: numbers and number words, quantities,
dates, currencies, names, stop words, word matching, value matching, mentions of phrases, intent phrases and
sentences.

The floor every package may stand on: it imports nothing of the project, and knows nothing of buckets, catalogs or
tools. Word tables are data (`english/data/*.toml`, read once by `english.tables`); a module here holds the code that
reads them, one job each.
"""
