// An MCP client + server pair on the official TypeScript SDK (stdio), both traced by
// OpenLLMetry for Node (its MCP instrumentation on both sides, its openai instrumentation on
// the client's model calls): a chat-completions loop offers the server's tools to the
// scripted model and runs each requested call with client.callTool; a failure comes back as
// an MCP isError result whose text goes back to the model. The conversation id is on the
// app's root span (gen_ai.conversation.id). CommonJS, so that require hooks see the SDKs.
const path = require("path");
const { start } = require("./telemetry.cjs");

const { sdk, mcp, openai } = start(process.env.TSREC_VARIANT, { openai: true });
const api = require("@opentelemetry/api");
const OpenAI = require("openai");
openai.manuallyInstrument(OpenAI.OpenAI);
const clientModule = require("@modelcontextprotocol/sdk/client/index.js");
mcp.manuallyInstrument(clientModule);
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const QUESTION = "Weather in Paris twice, then order A1?";

async function loop(client) {
  const { tools: listed } = await client.listTools();
  const tools = listed.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
  const model = new OpenAI({ baseURL: process.env.MODEL_BASE_URL, apiKey: "sk-local" });
  const messages = [{ role: "user", content: QUESTION }];
  for (;;) {
    const reply = await model.chat.completions.create({ model: "scripted", messages, tools });
    const message = reply.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls) {
      const result = await client.callTool({
        name: call.function.name, arguments: JSON.parse(call.function.arguments),
      });
      const text = result.content.map((c) => c.text).join("");
      messages.push({ role: "tool", tool_call_id: call.id, content: text });
    }
  }
}

async function main() {
  const tracer = api.trace.getTracer("conformance.agent");
  const attributes = { "gen_ai.conversation.id": "conv-42" };
  const answer = await tracer.startActiveSpan("agent.run", { attributes }, async (span) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(__dirname, "server.cjs")],
      env: { ...process.env },
    });
    const client = new clientModule.Client({ name: "conformance-agent", version: "1.0.0" });
    try {
      await client.connect(transport);
      return await loop(client);
    } finally {
      await client.close();
      span.end();
    }
  });
  console.log(JSON.stringify(answer));
  await sdk.shutdown();
}

main();
