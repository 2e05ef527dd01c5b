// The MCP server of the mcp-openllmetry-node recording: the two tools on the official
// TypeScript SDK's McpServer over stdio, traced by OpenLLMetry's MCP instrumentation in its
// own process (another service). A tool's exception becomes an isError result.
const { start } = require("./telemetry.cjs");

const { sdk, mcp } = start(process.env.TSREC_VARIANT + "-server");
const serverModule = require("@modelcontextprotocol/sdk/server/index.js");
mcp.manuallyInstrument(serverModule);
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = require("zod");

const server = new McpServer({ name: "conformance-tools", version: "1.0.0" });
server.tool("get_weather", "The weather in a city.", { city: z.string() }, async ({ city }) => ({
  content: [{ type: "text", text: "Sunny, 21 C in " + city }],
}));
server.tool("lookup_order", "An order's status.", { order_id: z.string() }, async ({ order_id }) => {
  throw new Error(`order ${order_id} not found`);
});

async function main() {
  const transport = new StdioServerTransport();
  transport.onclose = async () => {
    await sdk.shutdown();
  };
  await server.connect(transport);
}

main();
