// Preloaded (`node --import`) into airtable-mcp-server for the benchmark: its upstream URL is fixed to the real
// API, so fetches to it are sent to the emulator named in ANCHOR_UPSTREAM instead. Nothing else changes.
const target = process.env.ANCHOR_UPSTREAM;
if (target) {
  const original = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const rewritten = url.replace(/^https:\/\/(api|content)\.airtable\.com/, target);
    return original(input instanceof Request ? new Request(rewritten, input) : rewritten, init);
  };
}
