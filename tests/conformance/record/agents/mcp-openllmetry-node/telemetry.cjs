// The OTel SDK for one process of the MCP pair, with OpenLLMetry's MCP instrumentation
// (and, for the client, its openai instrumentation), handed the SDK's provider.
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace");
const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-proto");
const api = require("@opentelemetry/api");
const { McpInstrumentation } = require("@traceloop/instrumentation-mcp");

function start(serviceName, { openai = false } = {}) {
  const sdk = new NodeSDK({
    serviceName,
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  sdk.start();
  const mcp = new McpInstrumentation({ traceContent: true });
  mcp.setTracerProvider(api.trace.getTracerProvider());
  let openaiInstrumentation = null;
  if (openai) {
    const { OpenAIInstrumentation } = require("@traceloop/instrumentation-openai");
    openaiInstrumentation = new OpenAIInstrumentation({ traceContent: true });
    openaiInstrumentation.setTracerProvider(api.trace.getTracerProvider());
  }
  return { sdk, mcp, openai: openaiInstrumentation };
}

module.exports = { start };
