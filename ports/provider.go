package ports

import (
	"context"

	"github.com/jpcli/jp/domain/llm"
)

// Provider streams one model response. Stream calls emit for every event
// in order, from the calling goroutine, and returns after EventDone, or
// with an error: a *llm.Error (transient, fatal or auth) or ctx.Err(). If
// emit returns an error, Stream stops and returns it. Events emitted before
// a failure stand: the caller keeps the partial response.
type Provider interface {
	Stream(ctx context.Context, req llm.Request, emit func(llm.Event) error) error
}
