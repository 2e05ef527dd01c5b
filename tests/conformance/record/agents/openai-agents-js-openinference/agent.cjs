// The OpenAI Agents SDK for JavaScript (@openai/agents, Responses API) with a delegate agent
// run from the orchestrator's `weather_agent` tool, traced by OpenInference's openai
// instrumentation (the SDK's own tracing, which exports to OpenAI, is disabled): model spans
// only, no tool spans. The orchestrator runs in session conv-42, the delegate in its own
// session delegate-7 inside the same trace. lookup_order throws; its errorFunction tells
// the model `error: <message>`. CommonJS, so that require hooks see the SDK.
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace");
const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-proto");
const api = require("@opentelemetry/api");
const { OpenAIInstrumentation } = require("@arizeai/openinference-instrumentation-openai");
const { setSession } = require("@arizeai/openinference-core");

const instrumentation = new OpenAIInstrumentation();
const sdk = new NodeSDK({
  serviceName: process.env.TSREC_VARIANT,
  spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
});
sdk.start();
instrumentation.setTracerProvider(api.trace.getTracerProvider());
const OpenAI = require("openai");
instrumentation.manuallyInstrument(OpenAI);

const {
  Agent, run, tool, setDefaultOpenAIClient, setTracingDisabled,
} = require("@openai/agents");

setTracingDisabled(true);
setDefaultOpenAIClient(new OpenAI({ baseURL: process.env.MODEL_BASE_URL, apiKey: "sk-local" }));

const object = (properties) => ({
  type: "object", properties, required: Object.keys(properties), additionalProperties: false,
});

const getWeather = tool({
  name: "get_weather",
  description: "The weather in a city.",
  parameters: object({ city: { type: "string" } }),
  strict: true,
  execute: async ({ city }) => "Sunny, 21 C in " + city,
});

const lookupOrder = tool({
  name: "lookup_order",
  description: "An order's status.",
  parameters: object({ order_id: { type: "string" } }),
  strict: true,
  execute: async ({ order_id }) => {
    throw new Error(`order ${order_id} not found`);
  },
  errorFunction: (_context, error) => `error: ${error.message}`,
});

const delegate = new Agent({
  name: "weather_delegate",
  instructions: "Answer weather questions with get_weather.",
  model: "scripted",
  tools: [getWeather],
});

const weatherAgent = tool({
  name: "weather_agent",
  description: "Ask the weather delegate.",
  parameters: object({ input: { type: "string" } }),
  strict: true,
  execute: async ({ input }) => {
    const ctx = setSession(api.context.active(), { sessionId: "delegate-7" });
    const result = await api.context.with(ctx, () => run(delegate, input));
    return String(result.finalOutput);
  },
});

const orchestrator = new Agent({
  name: "orchestrator",
  instructions: "Answer with the tools.",
  model: "scripted",
  tools: [weatherAgent, lookupOrder],
});

async function main() {
  const tracer = api.trace.getTracer("conformance.agent");
  const ctx = setSession(api.context.active(), { sessionId: "conv-42" });
  const answer = await tracer.startActiveSpan("agent.run", {}, ctx, async (span) => {
    try {
      return (await run(orchestrator, "Weather in Paris, then order A1?")).finalOutput;
    } finally {
      span.end();
    }
  });
  console.log(JSON.stringify(answer));
  await sdk.shutdown();
}

main();
