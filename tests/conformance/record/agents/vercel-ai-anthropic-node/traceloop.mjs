// OpenLLMetry for Node (@traceloop/node-server-sdk) on the Anthropic SDK: a manual tool loop
// inside withWorkflow > withAgent, each tool run through withTool, the session id an
// association property; TSREC_STREAM=1 streams the replies. The failure goes back as a
// tool_result with is_error.
import * as traceloop from "@traceloop/node-server-sdk";
import * as anthropicModule from "@anthropic-ai/sdk";

const Anthropic = anthropicModule.default;

traceloop.initialize({
  appName: process.env.TSREC_VARIANT,
  baseUrl: process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
  apiKey: "unused",
  disableBatch: false,
  silenceInitializationMessage: true,
  // the instrumentation patches the module namespace (module.Anthropic.Messages)
  instrumentModules: { anthropic: anthropicModule },
});

const SCHEMAS = {
  get_weather: { type: "object", properties: { city: { type: "string" } } },
  lookup_order: { type: "object", properties: { order_id: { type: "string" } } },
};
const impl = {
  get_weather: ({ city }) => "Sunny, 21 C in " + city,
  lookup_order: ({ order_id }) => {
    throw new Error(`order ${order_id} not found`);
  },
};

async function runAgent(question) {
  const client = new Anthropic({ baseURL: process.env.MODEL_ROOT_URL, apiKey: "sk-ant-local" });
  const tools = Object.entries(SCHEMAS).map(([name, input_schema]) => ({ name, description: name, input_schema }));
  const messages = [{ role: "user", content: question }];
  for (;;) {
    const params = { model: "claude-scripted", max_tokens: 256, messages, tools };
    const reply =
      process.env.TSREC_STREAM === "1"
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
    messages.push({ role: "assistant", content: reply.content });
    const uses = reply.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) return reply.content[0].text;
    const results = [];
    for (const use of uses) {
      const block = { type: "tool_result", tool_use_id: use.id };
      try {
        block.content = await traceloop.withTool({ name: use.name }, impl[use.name], use.input);
      } catch (error) {
        block.content = error.message;
        block.is_error = true;
      }
      results.push(block);
    }
    messages.push({ role: "user", content: results });
  }
}

const answer = await traceloop.withAssociationProperties({ session_id: "conv-42" }, () =>
  traceloop.withWorkflow({ name: "conformance" }, () =>
    traceloop.withAgent({ name: "conformance_agent" }, runAgent, "Weather in Paris twice, then order A1?"),
  ),
);
console.log(answer);
await traceloop.forceFlush();
