package pluginhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// handlerFunc serves one request line and returns the answer (nil for
// requests that have none). An error becomes an error message. c is the
// checkout a data or mutation request is about (nil for the others).
type handlerFunc func(s *session, ctx context.Context, c *checkout, line []byte) (plugin.Message, error)

// route is how one message type is served.
type route struct {
	serve handlerFunc
	// early requests may come before ready.
	early bool
	// wait marks requests that can wait on something other than jp (the
	// user, another process's lock): with an id they are served on their
	// own goroutine, so that later requests are answered meanwhile. The
	// rest are quick and served on the loop, in order.
	wait bool
}

// decode reads line through the codec as a request of type T and
// validates it. Field errors wrap plugin.ErrBadField and name the field.
func decode[T any, PT interface {
	*T
	plugin.Request
}](c ports.PluginCodec, line []byte) (T, error) {
	var v T
	if err := c.Decode(line, &v); err != nil {
		return v, err
	}
	if err := PT(&v).Validate(); err != nil {
		return v, err
	}
	return v, nil
}

// handle adapts a typed handler of a request that names no checkout:
// decode and validate the line as T, then call fn.
func handle[T any, PT interface {
	*T
	plugin.Request
}](fn func(*session, context.Context, T) (plugin.Message, error)) handlerFunc {
	return func(s *session, ctx context.Context, _ *checkout, line []byte) (plugin.Message, error) {
		req, err := decode[T, PT](s.h.codec, line)
		if err != nil {
			return nil, err
		}
		return fn(s, ctx, req)
	}
}

// handleAt adapts a typed handler of a data or mutation request: it gets
// the checkout the request addresses.
func handleAt[T any, PT interface {
	*T
	plugin.Request
}](fn func(*session, context.Context, *checkout, T) (plugin.Message, error)) handlerFunc {
	return func(s *session, ctx context.Context, c *checkout, line []byte) (plugin.Message, error) {
		req, err := decode[T, PT](s.h.codec, line)
		if err != nil {
			return nil, err
		}
		return fn(s, ctx, c, req)
	}
}

// routes maps every plugin-to-host message type but ready and exit, which
// change the loop's own state (handleLine), to its handler.
var routes = map[string]route{
	plugin.TypePrint:              {serve: handle((*session).print)},
	plugin.TypeLog:                {serve: handle((*session).logLine), early: true},
	plugin.TypePrompt:             {serve: handle((*session).prompt), wait: true},
	plugin.TypeListConversations:  {serve: handleAt((*session).listConversations)},
	plugin.TypeReadEvents:         {serve: handleAt((*session).readEvents)},
	plugin.TypeReadConfig:         {serve: handleAt((*session).readConfig)},
	plugin.TypeReadDraft:          {serve: handleAt((*session).readDraft)},
	plugin.TypeWriteDraft:         {serve: handleAt((*session).writeDraft)},
	plugin.TypeCreateConversation: {serve: handleAt((*session).createConversation)},
	plugin.TypeSetTitle:           {serve: handleAt((*session).setTitle), wait: true},
	plugin.TypeArchive:            {serve: handleAt((*session).archive), wait: true},
	plugin.TypeUnarchive:          {serve: handleAt((*session).unarchive), wait: true},
	plugin.TypeLock:               {serve: handleAt((*session).lock), wait: true},
	plugin.TypeUnlock:             {serve: handleAt((*session).unlock)},
	plugin.TypeQuery:              {serve: handleAt((*session).query)},
	plugin.TypeInterrupt:          {serve: handleAt((*session).interrupt)},
	plugin.TypeRespond:            {serve: handle((*session).respond)},
	plugin.TypeListWorkspaces:     {serve: handle((*session).listWorkspaces)},
	plugin.TypePushEvents:         {serve: handleAt((*session).pushEvents)},
	plugin.TypeContextMeter:       {serve: handleAt((*session).contextMeter)},
	plugin.TypeCompact:            {serve: handleAt((*session).compact), wait: true},
	plugin.TypeReadHistory:        {serve: handle((*session).readHistory)},
	plugin.TypeAddHistory:         {serve: handle((*session).addHistory)},
	plugin.TypeRewind:             {serve: handleAt((*session).rewind), wait: true},
	plugin.TypeTrust:              {serve: handleAt((*session).trust), wait: true},
}

// version2Types are the requests only protocol version 2 serves: what
// only a multi-scope plugin can use. A plugin that declared version 1 is
// refused them. The prompt channel and delegated turns (query, interrupt,
// respond) are requests of the base protocol, served to every plugin.
var version2Types = map[string]bool{
	plugin.TypeListWorkspaces: true,
	plugin.TypeContextMeter:   true,
	plugin.TypeCompact:        true,
	plugin.TypeReadHistory:    true,
	plugin.TypeAddHistory:     true,
	plugin.TypeRewind:         true,
	plugin.TypeTrust:          true,
}

// multiOnlyTypes are the requests of a frontend to jp (a page that
// stands in for the terminal session: compact.go), served to multi-scope
// plugins only.
var multiOnlyTypes = map[string]bool{
	plugin.TypeContextMeter: true,
	plugin.TypeCompact:      true,
	plugin.TypeReadHistory:  true,
	plugin.TypeAddHistory:   true,
	plugin.TypeRewind:       true,
	plugin.TypeTrust:        true,
}

// handleLine routes one line. It reports whether the loop ends (exit).
// Bad lines get an error answer and the loop goes on.
func (s *session) handleLine(line []byte, readyTimer *time.Timer) (stop bool) {
	if len(bytes.TrimSpace(line)) == 0 {
		return false
	}
	s.trace("recv", line)
	hdr, err := s.h.codec.DecodeHeader(line)
	if err != nil {
		s.reply(errorReply(hdr, err))
		return false
	}
	switch hdr.Type {
	case plugin.TypeReady:
		s.onReady(line, readyTimer)
		return false
	case plugin.TypeExit:
		return s.onExit(hdr, line)
	}
	r, ok := routes[hdr.Type]
	switch {
	case !ok:
		err = fmt.Errorf("unknown message type %q (see docs/plugins.md for the protocol)", hdr.Type)
	case !s.ready && !r.early:
		err = errors.New("send ready (the answer to init) before any request")
	case version2Types[hdr.Type] && s.version.Load() < 2:
		err = fmt.Errorf("%s needs plugin protocol version 2, and this plugin speaks version 1 (it declared no protocol_version, which means 1): declare \"protocol_version\": 2 in its manifest and describe answer, or answer init with {\"type\":\"ready\",\"protocol\":2}", hdr.Type)
	case multiOnlyTypes[hdr.Type] && s.scope != workspace.ScopeMulti:
		err = fmt.Errorf(`%s is for plugins with workspace_scope "multi" (frontends such as jp serve web); this plugin is single-scope`, hdr.Type)
	case hdr.Workspace != nil && s.scope == workspace.ScopeSingle:
		err = errors.New(`workspace is only for plugins with workspace_scope "multi"; this plugin is single-scope: leave it out`)
		if s.version.Load() < 2 {
			err = errors.New(`workspace is only for plugins with workspace_scope "multi" (protocol version 2), and this plugin speaks version 1 and is single-scope: leave it out`)
		}
	}
	var c *checkout
	if err == nil && addressedTypes[hdr.Type] {
		c, err = s.address(s.hctx, hdr.Workspace)
	}
	if err != nil {
		s.reply(errorReply(hdr, err))
		return false
	}
	if !r.wait || hdr.ID == "" {
		s.serve(r, hdr, c, line)
		return false
	}
	s.slots <- struct{}{}
	s.inflight.Add(1)
	go func() {
		defer func() { <-s.slots; s.inflight.Done() }()
		s.serve(r, hdr, c, line)
	}()
	return false
}

// serve runs one handler and sends its answer or error.
func (s *session) serve(r route, hdr plugin.Header, c *checkout, line []byte) {
	msg, err := r.serve(s, s.hctx, c, line)
	switch {
	case err != nil && s.hctx.Err() != nil:
		// The run is over; nobody reads the answer.
	case err != nil:
		s.log.Debug("plugin request failed", "plugin", s.name, "type", hdr.Type, "error", err)
		s.reply(errorReply(hdr, err))
	case msg != nil:
		// An answer jp cannot encode is an error answer, so the plugin
		// waiting on it hears why rather than nothing.
		if err := s.send(s.hctx, msg); errors.Is(err, errEncode) {
			s.log.Debug("plugin answer not encoded", "plugin", s.name, "type", msg.MessageType(), "error", err)
			s.reply(errorReply(hdr, err))
		} else if err != nil {
			s.log.Debug("plugin answer not delivered", "plugin", s.name, "type", msg.MessageType(), "error", err)
		}
	}
}

// errorReply is the error answer to the request hdr describes. A query
// refused by the last-root precondition carries the record as stored.
func errorReply(hdr plugin.Header, err error) plugin.Error {
	msg := err.Error()
	var nf *ports.NotFoundError
	if errors.As(err, &nf) {
		msg = nf.What + " not found"
	}
	e := plugin.Error{ID: hdr.ID, Request: hdr.Type, Message: msg}
	var lr *conversation.LastRootError
	if errors.As(err, &lr) && lr.Current.Path != "" {
		cur := lr.Current
		e.LastRoot = &cur
	}
	return e
}
