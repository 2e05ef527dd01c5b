// A Genkit (JS) generate() with two tools on an OpenAI-compatible model (the scripted
// model through @genkit-ai/compat-oai). Genkit traces every action itself; its own
// enableTelemetry() exports them over OTLP/HTTP protobuf. Genkit has no conversation id
// outside its beta sessions: each run is a trace of its own. A tool that throws aborts the
// generate() call (Genkit does not hand the error back to the model).
import { genkit, z } from "genkit";
import { enableTelemetry, flushTracing } from "genkit/tracing";
import { openAICompatible } from "@genkit-ai/compat-oai";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";

// Genkit wants span processors (its SDK is OpenTelemetry JS 1.x: exporter of that line)
await enableTelemetry({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });

const ai = genkit({
  plugins: [openAICompatible({ name: "local", apiKey: "sk-local", baseURL: process.env.MODEL_BASE_URL })],
});

const getWeather = ai.defineTool(
  { name: "get_weather", description: "Current weather in a city.", inputSchema: z.object({ city: z.string() }), outputSchema: z.string() },
  async ({ city }) => "Sunny, 21 C in " + city,
);
const lookupOrder = ai.defineTool(
  { name: "lookup_order", description: "Look an order up.", inputSchema: z.object({ order_id: z.string() }), outputSchema: z.string() },
  async ({ order_id }) => {
    throw new Error(`order ${order_id} not found`);
  },
);

try {
  const { text } = await ai.generate({
    model: "local/scripted",
    prompt: "Weather in Paris twice, then order A1?",
    tools: [getWeather, lookupOrder],
    maxTurns: 10,
  });
  console.log(text);
} catch (error) {
  console.log("run stopped by the tool's exception:", error.message);
}
await flushTracing();
