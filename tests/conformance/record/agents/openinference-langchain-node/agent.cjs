// OpenInference for Node on a LangGraph.js prebuilt ReAct agent (ChatOpenAI on the scripted
// model): @arizeai/openinference-instrumentation-langchain, manually instrumenting
// @langchain/core's callback manager as its docs say. The session id is OpenInference's
// (setSession) around the run; the LangGraph thread id is the same value. lookup_order
// throws: the JS OpenInference TOOL span gets the JS error, the run stops (no handler).
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace");
const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-proto");
const api = require("@opentelemetry/api");
const { LangChainInstrumentation } = require("@arizeai/openinference-instrumentation-langchain");
const CallbackManagerModule = require("@langchain/core/callbacks/manager");

const sdk = new NodeSDK({
  serviceName: process.env.TSREC_VARIANT,
  spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
});
sdk.start();
new LangChainInstrumentation().manuallyInstrument(CallbackManagerModule);

const { tool } = require("@langchain/core/tools");
const { ChatOpenAI } = require("@langchain/openai");
const { createReactAgent } = require("@langchain/langgraph/prebuilt");
const { z } = require("zod");
const { setSession } = require("@arizeai/openinference-core");

const getWeather = tool(async ({ city }) => "Sunny, 21 C in " + city, {
  name: "get_weather",
  description: "Current weather in a city.",
  schema: z.object({ city: z.string() }),
});
const lookupOrder = tool(
  async ({ order_id }) => {
    throw new Error(`order ${order_id} not found`);
  },
  { name: "lookup_order", description: "Look an order up.", schema: z.object({ order_id: z.string() }) },
);

async function main() {
  const model = new ChatOpenAI({ model: "scripted", apiKey: "sk-local", configuration: { baseURL: process.env.MODEL_BASE_URL } });
  const agent = createReactAgent({ llm: model, tools: [getWeather, lookupOrder], name: "conformance_agent" });
  const ctx = setSession(api.context.active(), { sessionId: "conv-42" });
  try {
    const result = await api.context.with(ctx, () =>
      agent.invoke(
        { messages: [{ role: "user", content: "Weather in Paris twice, then order A1?" }] },
        { configurable: { thread_id: "conv-42" } },
      ),
    );
    console.log(result.messages.at(-1).content);
  } catch (error) {
    console.log("run stopped by the tool's exception:", error.message);
  }
  await sdk.shutdown();
}

main();
