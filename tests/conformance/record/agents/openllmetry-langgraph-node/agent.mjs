// OpenLLMetry for Node on a LangGraph.js prebuilt ReAct agent (ChatOpenAI on the scripted
// model): @traceloop/node-server-sdk's LangChain instrumentation (a callback handler
// injected into @langchain/core's callback manager). The session id is an association
// property; the LangGraph thread id is the same value in the run config.
import * as traceloop from "@traceloop/node-server-sdk";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { z } from "zod";

traceloop.initialize({
  appName: process.env.TSREC_VARIANT,
  baseUrl: process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
  apiKey: "unused",
  disableBatch: false,
  silenceInitializationMessage: true,
});

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

const model = new ChatOpenAI({ model: "scripted", apiKey: "sk-local", configuration: { baseURL: process.env.MODEL_BASE_URL } });
const agent = createReactAgent({ llm: model, tools: [getWeather, lookupOrder], name: "conformance_agent" });
try {
  const result = await traceloop.withAssociationProperties({ session_id: "conv-42" }, () =>
    agent.invoke(
      { messages: [{ role: "user", content: "Weather in Paris twice, then order A1?" }] },
      { configurable: { thread_id: "conv-42" } },
    ),
  );
  console.log(result.messages.at(-1).content);
} catch (error) {
  console.log("run stopped by the tool's exception:", error.message);
}
await traceloop.forceFlush();
