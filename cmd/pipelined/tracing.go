package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/extra/bunotel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// observability is what a serving command reports to: the JSON log on
// stderr and, when configured, an OpenTelemetry tracer.
type observability struct {
	log    *slog.Logger
	tracer trace.TracerProvider // nil: tracing is off
	close  func() error         // flushes and stops the exporter
}

// newObservability builds the log and, when the standard
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
// set (and OTEL_SDK_DISABLED is not true), a tracer that exports spans
// over OTLP. The exporter reads the other OTEL_EXPORTER_OTLP_* variables
// (headers, certificates, timeout, compression) from the process's
// environment, and the SDK reads OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and OTEL_BSP_*.
func newObservability(ctx context.Context, e env) (*observability, error) {
	o := &observability{log: slog.New(slog.NewJSONHandler(e.stderr, nil)), close: func() error { return nil }}
	if e.getenv("OTEL_SDK_DISABLED") == "true" ||
		e.getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && e.getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return o, nil
	}
	exp, err := newExporter(ctx, e.getenv)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "pipelined"), attribute.String("service.version", readVersion().Version)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
		resource.WithTelemetrySDK(),
	)
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	o.tracer = tp
	o.close = func() error { return tp.Shutdown(context.WithoutCancel(ctx)) }
	o.log.Info("tracing", "exporter", "otlp")
	return o, nil
}

// newExporter is the OTLP span exporter of the protocol the environment
// names: http/protobuf (the default) or grpc.
func newExporter(ctx context.Context, getenv func(string) string) (sdktrace.SpanExporter, error) {
	protocol := cmp.Or(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), "http/protobuf")
	switch protocol {
	case "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	}
	return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL: %q is not supported; use http/protobuf or grpc", protocol)
}

// queryHooks are the store's query hooks: a span per statement, a child of
// the request's span, when tracing is on. Statements are recorded without
// their arguments.
func (o *observability) queryHooks() []bun.QueryHook {
	if o.tracer == nil {
		return nil
	}
	return []bun.QueryHook{bunotel.NewQueryHook(bunotel.WithTracerProvider(o.tracer))}
}
