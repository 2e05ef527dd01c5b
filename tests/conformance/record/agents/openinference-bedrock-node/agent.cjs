// A manual tool loop on the AWS SDK for JavaScript's Bedrock runtime client, traced only by a
// Bedrock instrumentation: no framework, no tool spans. Chosen by env:
// TSREC_INSTR = oi-bedrock (@arizeai/openinference-instrumentation-bedrock),
//   traceloop-bedrock (@traceloop/instrumentation-bedrock);
// TSREC_API = converse (ConverseCommand: toolUse / toolResult blocks) or invoke
//   (InvokeModelCommand with an Anthropic Messages body: tool_use / tool_result blocks).
// The loop runs inside one application span; the conversation id is OpenInference's session
// for oi-*, else the root span's gen_ai.conversation.id. CommonJS, so require hooks see the SDK.
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace");
const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-proto");
const api = require("@opentelemetry/api");

const INSTR = process.env.TSREC_INSTR;
const API = process.env.TSREC_API || "converse";
const QUESTION = "Weather in Paris twice, then order A1?";
const MODEL = "anthropic.claude-scripted-v1:0";

const instrumentations = [];
let manual = null;
if (INSTR === "oi-bedrock") {
  const { BedrockInstrumentation } = require("@arizeai/openinference-instrumentation-bedrock");
  manual = new BedrockInstrumentation();
} else if (INSTR === "traceloop-bedrock") {
  const { BedrockInstrumentation } = require("@traceloop/instrumentation-bedrock");
  manual = new BedrockInstrumentation({ traceContent: true });
} else {
  throw new Error(`TSREC_INSTR ${INSTR}?`);
}

const sdk = new NodeSDK({
  serviceName: process.env.TSREC_VARIANT,
  spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  instrumentations,
});
sdk.start();
manual.setTracerProvider(api.trace.getTracerProvider());

const impl = {
  get_weather: ({ city }) => "Sunny, 21 C in " + city,
  lookup_order: ({ order_id }) => {
    throw new Error(`order ${order_id} not found`);
  },
};
const SCHEMAS = {
  get_weather: { type: "object", properties: { city: { type: "string" } } },
  lookup_order: { type: "object", properties: { order_id: { type: "string" } } },
};

function run(name, args) {
  try {
    return { result: impl[name](args), error: null };
  } catch (error) {
    return { result: null, error: error.message };
  }
}

function client() {
  const runtime = require("@aws-sdk/client-bedrock-runtime");
  const { NodeHttpHandler } = require("@smithy/node-http-handler");
  // OpenInference's require hook patches the module when it is loaded (a second, manual
  // patch would record every call twice); OpenLLMetry's is patched by hand
  if (INSTR.startsWith("traceloop")) manual.manuallyInstrument(runtime);
  return {
    runtime,
    client: new runtime.BedrockRuntimeClient({
      region: "us-east-1",
      endpoint: process.env.MODEL_ROOT_URL,
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
      // the runtime client defaults to HTTP/2 (for its bidirectional stream); the scripted
      // model speaks HTTP/1.1
      requestHandler: new NodeHttpHandler(),
    }),
  };
}

async function converseLoop() {
  const { runtime, client: bedrock } = client();
  const toolConfig = {
    tools: Object.entries(SCHEMAS).map(([name, json]) => ({
      toolSpec: { name, description: name, inputSchema: { json } },
    })),
  };
  const messages = [{ role: "user", content: [{ text: QUESTION }] }];
  for (;;) {
    const reply = await bedrock.send(new runtime.ConverseCommand({ modelId: MODEL, messages, toolConfig }));
    const message = reply.output.message;
    messages.push(message);
    const uses = message.content.filter((b) => b.toolUse).map((b) => b.toolUse);
    if (uses.length === 0) return message.content[0].text;
    messages.push({
      role: "user",
      content: uses.map((use) => {
        const { result, error } = run(use.name, use.input);
        const block = { toolUseId: use.toolUseId, content: [{ text: result ?? `Error: ${error}` }] };
        if (error !== null) block.status = "error";
        return { toolResult: block };
      }),
    });
  }
}

async function invokeLoop() {
  const { runtime, client: bedrock } = client();
  const tools = Object.entries(SCHEMAS).map(([name, input_schema]) => ({ name, description: name, input_schema }));
  const messages = [{ role: "user", content: QUESTION }];
  for (;;) {
    const body = { anthropic_version: "bedrock-2023-05-31", max_tokens: 256, messages, tools };
    const reply = await bedrock.send(
      new runtime.InvokeModelCommand({
        modelId: MODEL, contentType: "application/json", accept: "application/json", body: JSON.stringify(body),
      }),
    );
    const message = JSON.parse(new TextDecoder().decode(reply.body));
    messages.push({ role: "assistant", content: message.content });
    const uses = message.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) return message.content[0].text;
    messages.push({
      role: "user",
      content: uses.map((use) => {
        const { result, error } = run(use.name, use.input);
        const block = { type: "tool_result", tool_use_id: use.id, content: result ?? error };
        if (error !== null) block.is_error = true;
        return block;
      }),
    });
  }
}

async function main() {
  const loop = API === "invoke" ? invokeLoop : converseLoop;
  const tracer = api.trace.getTracer("conformance.agent");
  let ctx = api.context.active();
  const attributes = {};
  if (INSTR.startsWith("oi-")) {
    const { setSession } = require("@arizeai/openinference-core");
    ctx = setSession(ctx, { sessionId: "conv-42" });
  } else {
    attributes["gen_ai.conversation.id"] = "conv-42";
  }
  const answer = await tracer.startActiveSpan("agent.run", { attributes }, ctx, async (span) => {
    try {
      return await loop();
    } finally {
      span.end();
    }
  });
  console.log(JSON.stringify(answer));
  await sdk.shutdown();
}

main();
