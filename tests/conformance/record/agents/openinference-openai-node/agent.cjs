// A manual tool loop on a provider SDK for Node (openai or @anthropic-ai/sdk), traced only
// by one provider instrumentation: no framework, no tool spans. Chosen by env:
// TSREC_INSTR = oi-openai (@arizeai/openinference-instrumentation-openai),
//   otel-openai (@opentelemetry/instrumentation-openai, GenAI semconv + log events),
//   oi-anthropic (@arizeai/openinference-instrumentation-anthropic),
//   traceloop-anthropic (@traceloop/instrumentation-anthropic),
//   traceloop-openai (@traceloop/instrumentation-openai);
// TSREC_API=responses calls the OpenAI Responses API instead of chat completions;
// TSREC_STREAM=1 streams the replies. The loop runs inside one application span; the
// conversation id is OpenInference's session (setSession) for oi-*, else the root span's
// gen_ai.conversation.id. CommonJS, so that require hooks see the SDKs.
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace");
const { BatchLogRecordProcessor } = require("@opentelemetry/sdk-logs");
const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-proto");
const { OTLPLogExporter } = require("@opentelemetry/exporter-logs-otlp-proto");
const api = require("@opentelemetry/api");

const INSTR = process.env.TSREC_INSTR;
const STREAM = process.env.TSREC_STREAM === "1";
const RESPONSES = process.env.TSREC_API === "responses";
const QUESTION = "Weather in Paris twice, then order A1?";

const instrumentations = [];
let manual = null;
if (INSTR === "oi-openai") {
  const { OpenAIInstrumentation } = require("@arizeai/openinference-instrumentation-openai");
  manual = new OpenAIInstrumentation();
} else if (INSTR === "otel-openai") {
  const { OpenAIInstrumentation } = require("@opentelemetry/instrumentation-openai");
  instrumentations.push(new OpenAIInstrumentation());
} else if (INSTR === "oi-anthropic") {
  const { AnthropicInstrumentation } = require("@arizeai/openinference-instrumentation-anthropic");
  manual = new AnthropicInstrumentation();
} else if (INSTR === "traceloop-anthropic") {
  const { AnthropicInstrumentation } = require("@traceloop/instrumentation-anthropic");
  manual = new AnthropicInstrumentation({ traceContent: true });
} else if (INSTR === "traceloop-openai") {
  const { OpenAIInstrumentation } = require("@traceloop/instrumentation-openai");
  manual = new OpenAIInstrumentation({ traceContent: true });
} else {
  throw new Error(`TSREC_INSTR ${INSTR}?`);
}

const spanProcessor = new BatchSpanProcessor({ exporter: new OTLPTraceExporter() });
const logProcessor = new BatchLogRecordProcessor({ exporter: new OTLPLogExporter() });
const sdk = new NodeSDK({
  serviceName: process.env.TSREC_VARIANT,
  spanProcessors: [spanProcessor],
  logRecordProcessors: [logProcessor],
  instrumentations,
});
sdk.start();
// An instrumentation bundling an older @opentelemetry/api (OpenLLMetry's) sees no global
// provider of a newer one: hand it the SDK's provider.
if (manual) manual.setTracerProvider(api.trace.getTracerProvider());

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

// OpenLLMetry patches the client class's static resources (Chat, Responses), OpenInference
// the module.
function instrumentOpenAI(OpenAI) {
  if (manual) manual.manuallyInstrument(INSTR.startsWith("traceloop") ? OpenAI.OpenAI : OpenAI);
}

async function openaiLoop() {
  const OpenAI = require("openai");
  instrumentOpenAI(OpenAI);
  const client = new OpenAI({ baseURL: process.env.MODEL_BASE_URL, apiKey: "sk-local" });
  const tools = Object.entries(SCHEMAS).map(([name, parameters]) => ({
    type: "function",
    function: { name, parameters },
  }));
  const messages = [{ role: "user", content: QUESTION }];
  for (;;) {
    let message;
    if (STREAM) {
      const stream = await client.chat.completions.create({
        model: "scripted", messages, tools, stream: true, stream_options: { include_usage: true },
      });
      message = { role: "assistant", content: null, tool_calls: [] };
      for await (const chunk of stream) {
        const delta = chunk.choices[0] && chunk.choices[0].delta;
        if (!delta) continue;
        if (delta.content) message.content = (message.content || "") + delta.content;
        for (const call of delta.tool_calls || []) {
          message.tool_calls[call.index] = {
            id: call.id, type: "function", function: { name: call.function.name, arguments: call.function.arguments },
          };
        }
      }
      if (message.tool_calls.length === 0) delete message.tool_calls;
    } else {
      const reply = await client.chat.completions.create({ model: "scripted", messages, tools });
      message = reply.choices[0].message;
    }
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls) {
      const { result, error } = run(call.function.name, JSON.parse(call.function.arguments));
      messages.push({ role: "tool", tool_call_id: call.id, content: result ?? `Error: ${error}` });
    }
  }
}

async function responsesLoop() {
  const OpenAI = require("openai");
  instrumentOpenAI(OpenAI);
  const client = new OpenAI({ baseURL: process.env.MODEL_BASE_URL, apiKey: "sk-local" });
  const tools = Object.entries(SCHEMAS).map(([name, parameters]) => ({
    type: "function", name, description: name, parameters,
  }));
  const input = [{ role: "user", content: QUESTION }];
  for (;;) {
    let reply;
    if (STREAM) {
      const stream = await client.responses.create({ model: "scripted", input, tools, stream: true });
      for await (const event of stream) {
        if (event.type === "response.completed") reply = event.response;
      }
    } else {
      reply = await client.responses.create({ model: "scripted", input, tools });
    }
    const calls = reply.output.filter((item) => item.type === "function_call");
    if (calls.length === 0) return reply.output_text ?? reply.output[0].content[0].text;
    for (const call of calls) {
      input.push({ type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments });
      const { result, error } = run(call.name, JSON.parse(call.arguments));
      input.push({ type: "function_call_output", call_id: call.call_id, output: result ?? `Error: ${error}` });
    }
  }
}

async function anthropicLoop() {
  const Anthropic = require("@anthropic-ai/sdk");
  if (manual) manual.manuallyInstrument(Anthropic);
  const Client = Anthropic.default || Anthropic.Anthropic || Anthropic;
  const client = new Client({ baseURL: process.env.MODEL_ROOT_URL, apiKey: "sk-ant-local" });
  const tools = Object.entries(SCHEMAS).map(([name, input_schema]) => ({ name, description: name, input_schema }));
  const messages = [{ role: "user", content: QUESTION }];
  for (;;) {
    const params = { model: "claude-scripted", max_tokens: 256, messages, tools };
    let reply;
    if (STREAM) {
      const stream = await client.messages.create({ ...params, stream: true });
      const blocks = [];
      const json = [];
      for await (const event of stream) {
        if (event.type === "content_block_start") {
          blocks[event.index] = { ...event.content_block };
          json[event.index] = "";
        } else if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
          json[event.index] += event.delta.partial_json;
        } else if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
          blocks[event.index].text += event.delta.text;
        }
      }
      blocks.forEach((b, i) => { if (b.type === "tool_use") b.input = JSON.parse(json[i] || "{}"); });
      reply = { content: blocks };
    } else {
      reply = await client.messages.create(params);
    }
    messages.push({ role: "assistant", content: reply.content });
    const uses = reply.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) return reply.content[0].text;
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
  const loop = INSTR.endsWith("anthropic") ? anthropicLoop : RESPONSES ? responsesLoop : openaiLoop;
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
