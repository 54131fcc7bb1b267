// The server's messages are worded for the command line too, and some name a `ragent` command a person on the page
// cannot run: where the page does the same, it says so instead; where only the server's operator can, it says to ask
// them. The server's wording is left as it is for the command line and the SDK.

const ON_THE_PAGE = [
  [/`ragent documents list` shows them/g, "the Documents view lists them"],
  [/\(`ragent documents delete`\)/g, "(its Delete button in the Documents view)"],
  [/\(`ragent ingest PATH --bucket NAME --scope [^`]*`, or the server's `ingest` graph\)/g, "(Documents, then Upload and ingest)"],
  [/or add it with (`ragent buckets add [^`]*`)/g, "or ask whoever runs the server to add it ($1)"],
];

export function inPageWords(text) {
  return ON_THE_PAGE.reduce((said, [command, onThePage]) => said.replace(command, onThePage), String(text));
}
