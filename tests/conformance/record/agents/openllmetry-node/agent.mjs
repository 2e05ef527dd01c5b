// OpenLLMetry for Node (@traceloop/node-server-sdk): a manual openai tool loop inside
// withWorkflow > withAgent, each tool run through withTool, the session id an
// association property. Exported by the SDK's own OTLP/HTTP exporter to the endpoint.
import * as traceloop from "@traceloop/node-server-sdk";
import OpenAI from "openai";

traceloop.initialize({
  appName: process.env.TSREC_VARIANT,
  baseUrl: process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
  apiKey: "unused",
  disableBatch: false,
  silenceInitializationMessage: true,
  instrumentModules: { openAI: OpenAI },
});

const TOOLS = [
  { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } },
  { type: "function", function: { name: "lookup_order", parameters: { type: "object", properties: { order_id: { type: "string" } } } } },
];

const impl = {
  get_weather: ({ city }) => "Sunny, 21 C in " + city,
  lookup_order: ({ order_id }) => {
    throw new Error(`order ${order_id} not found`);
  },
};

async function runAgent(question) {
  const client = new OpenAI({ baseURL: process.env.MODEL_BASE_URL, apiKey: "sk-local" });
  const messages = [{ role: "user", content: question }];
  for (;;) {
    const reply = await client.chat.completions.create({ model: "scripted", messages, tools: TOOLS });
    const message = reply.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls) {
      const args = JSON.parse(call.function.arguments);
      let result;
      try {
        result = await traceloop.withTool({ name: call.function.name }, impl[call.function.name], args);
      } catch (error) {
        result = `Error: ${error.message}`;
      }
      messages.push({ role: "tool", tool_call_id: call.id, content: result });
    }
  }
}

const answer = await traceloop.withAssociationProperties({ session_id: "conv-42" }, () =>
  traceloop.withWorkflow({ name: "conformance" }, () =>
    traceloop.withAgent({ name: "conformance_agent" }, runAgent, "Weather in Paris twice, then order A1?"),
  ),
);
console.log(answer);
await traceloop.forceFlush();
