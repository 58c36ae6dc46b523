package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// requestTimeout bounds one page's requests to jp.
const requestTimeout = 30 * time.Second

// page is what every page template gets.
type page struct {
	Title  string
	Crumbs []crumb
	Data   any
}

type crumb struct{ Text, URL, Title string }

// render executes a page; a template error is a bug, logged and shown.
func (s *Server) render(w http.ResponseWriter, status int, name string, p page) {
	var buf bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		s.log("render " + name + ": " + err.Error())
		http.Error(w, "could not render the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// problem shows a page that says what went wrong and where to go.
func (s *Server) problem(w http.ResponseWriter, status int, message string, back crumb) {
	s.render(w, status, "problem", page{Title: "Problem", Data: struct {
		Message string
		Back    crumb
	}{message, back}})
}

// hostProblem shows a failed request to jp.
func (s *Server) hostProblem(w http.ResponseWriter, what string, err error, back crumb) {
	s.log(what + ": " + err.Error())
	s.problem(w, http.StatusBadGateway, "jp could not "+what+": "+hostMessage(err), back)
}

var home = crumb{Text: "Workspaces", URL: "/"}

// workspacesView is the workspaces page's data.
type workspacesView struct {
	Workspaces []plugin.WorkspaceEntry
}

func (s *Server) workspacesPage(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	ws, err := s.host.ListWorkspaces(ctx)
	if err != nil {
		s.hostProblem(w, "list the workspaces", err, home)
		return
	}
	sortWorkspaces(ws)
	s.render(w, http.StatusOK, "workspaces", page{Title: "Workspaces", Data: workspacesView{Workspaces: ws}})
}

// sortWorkspaces puts the launch workspace first, then those with a live
// checkout, most recently used first, then the rest by slug.
func sortWorkspaces(ws []plugin.WorkspaceEntry) {
	last := func(e plugin.WorkspaceEntry) time.Time {
		var t time.Time
		for _, r := range e.Roots {
			if r.LastUsed.After(t) {
				t = r.LastUsed
			}
		}
		return t
	}
	sort.SliceStable(ws, func(i, j int) bool {
		a, b := ws[i], ws[j]
		if a.Launch != b.Launch {
			return a.Launch
		}
		if usable(a) != usable(b) {
			return usable(a)
		}
		if la, lb := last(a), last(b); !la.Equal(lb) {
			return la.After(lb)
		}
		return a.Slug < b.Slug
	})
}

// isDefault reports whether id is the default workspace's: what jp
// stores when it is used outside any workspace. It has no checkout and is
// addressed by its ID alone (root "").
func isDefault(id string) bool { return id == string(workspace.DefaultID) }

// usable reports whether a workspace's conversations can be opened: it
// has a live checkout, or it is the default workspace.
func usable(e plugin.WorkspaceEntry) bool { return len(e.Roots) > 0 || e.Default || isDefault(e.ID) }

// rootLabel names a checkout root for people; "" is the default
// workspace's.
func rootLabel(root string) string {
	if root == "" {
		return "outside any workspace"
	}
	return root
}

// checkout resolves the {ws} path value and the root query parameter to
// a live checkout (root "" for the default workspace). It writes the
// problem page and returns false when they name none.
func (s *Server) checkout(w http.ResponseWriter, r *http.Request) (plugin.WorkspaceEntry, string, bool) {
	id := r.PathValue("ws")
	root := r.URL.Query().Get("root")
	if _, err := workspace.ValidateRef(workspace.Ref{ID: id, Root: root}); err != nil {
		s.problem(w, http.StatusBadRequest, err.Error(), home)
		return plugin.WorkspaceEntry{}, "", false
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	all, err := s.host.ListWorkspaces(ctx)
	if err != nil {
		s.hostProblem(w, "list the workspaces", err, home)
		return plugin.WorkspaceEntry{}, "", false
	}
	for _, e := range all {
		if e.ID != id {
			continue
		}
		if e.Default || isDefault(e.ID) {
			if root != "" {
				s.problem(w, http.StatusNotFound, fmt.Sprintf("workspace %s (%s) is the default workspace: it has no checkout, open it without root", e.Slug, e.ID), home)
				return e, "", false
			}
			return e, "", true
		}
		if root == "" {
			if len(e.Roots) == 1 {
				http.Redirect(w, r, checkoutURL(e.ID, e.Roots[0].Path)+r.URL.Fragment, http.StatusSeeOther)
				return e, "", false
			}
			s.problem(w, http.StatusBadRequest, fmt.Sprintf("workspace %s (%s) has %d live checkouts: pick one on the workspaces page", e.Slug, e.ID, len(e.Roots)), home)
			return e, "", false
		}
		for _, rt := range e.Roots {
			if rt.Path == root {
				return e, root, true
			}
		}
		s.problem(w, http.StatusNotFound, fmt.Sprintf("%s is not a live checkout of workspace %s (%s) any more: pick another on the workspaces page", root, e.Slug, e.ID), home)
		return e, "", false
	}
	s.problem(w, http.StatusNotFound, fmt.Sprintf("jp knows no workspace %s", id), home)
	return plugin.WorkspaceEntry{}, "", false
}

func checkoutURL(ws, root string) string {
	return "/w/" + url.PathEscape(ws) + rootQuery(root)
}

func conversationURL(ws, root, conv string) string {
	return "/w/" + url.PathEscape(ws) + "/c/" + url.PathEscape(conv) + rootQuery(root)
}

// rootQuery is the ?root= of a checkout's pages, none for the default
// workspace's.
func rootQuery(root string) string {
	if root == "" {
		return ""
	}
	return "?root=" + url.QueryEscape(root)
}

// where says where a conversation last ran, seen from the checkout root.
type where struct {
	Class string // here, elsewhere, gone, none
	Text  string
	Path  string
}

func whereOf(lr *conversation.LastRoot, root string, live []plugin.WorkspaceRoot) where {
	switch {
	case lr == nil:
		return where{Class: "none", Text: "no record yet"}
	case !recordLive(lr, live):
		return where{Class: "gone", Text: "last ran in a worktree that no longer exists", Path: lr.Path}
	case lr.Path == root:
		return where{Class: "here", Text: "here", Path: lr.Path}
	}
	return where{Class: "elsewhere", Text: "in " + lr.Path, Path: lr.Path}
}

// recordLive is the record's live flag as jp derived it, or, when jp
// sent none, whether its path is one of the live checkouts.
func recordLive(lr *conversation.LastRoot, live []plugin.WorkspaceRoot) bool {
	if lr.Live != nil {
		return *lr.Live
	}
	for _, r := range live {
		if r.Path == lr.Path {
			return true
		}
	}
	return false
}

type conversationRow struct {
	plugin.ConversationSummary
	Where where
	URL   string
}

// conversationsView is the conversations page's data.
type conversationsView struct {
	Workspace plugin.WorkspaceEntry
	Root      string
	Others    []plugin.WorkspaceRoot
	Active    []conversationRow
	Archived  []conversationRow
	NewURL    string
}

func (s *Server) conversationsPage(w http.ResponseWriter, r *http.Request) {
	e, root, ok := s.checkout(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	ref := workspace.Ref{ID: e.ID, Root: root}
	convs, err := s.host.ListConversations(ctx, ref)
	back := crumb{Text: "Workspaces", URL: "/#ws-" + e.ID}
	if err != nil {
		s.hostProblem(w, "list the conversations of "+rootLabel(root), err, back)
		return
	}
	v := conversationsView{Workspace: e, Root: root, NewURL: "/w/" + url.PathEscape(e.ID) + "/new" + rootQuery(root)}
	for _, rt := range e.Roots {
		if rt.Path != root {
			v.Others = append(v.Others, rt)
		}
	}
	for _, c := range convs {
		row := conversationRow{ConversationSummary: c, Where: whereOf(c.LastRoot, root, e.Roots), URL: conversationURL(e.ID, root, c.ID)}
		if c.ArchivedAt != nil {
			v.Archived = append(v.Archived, row)
		} else {
			v.Active = append(v.Active, row)
		}
	}
	s.render(w, http.StatusOK, "conversations", page{
		Title:  e.Slug + " · " + rootLabel(root),
		Crumbs: []crumb{home, {Text: e.Slug, URL: "/#ws-" + e.ID, Title: "workspace " + e.ID}, {Text: rootLabel(root)}},
		Data:   v,
	})
}

func (s *Server) newConversation(w http.ResponseWriter, r *http.Request) {
	e, root, ok := s.checkout(w, r)
	if !ok {
		return
	}
	title := strings.TrimSpace(r.PostFormValue("title"))
	if strings.ContainsAny(title, "\r\n") {
		s.problem(w, http.StatusBadRequest, "a title is one line", crumb{Text: "Back", URL: checkoutURL(e.ID, root)})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	id, err := s.host.CreateConversation(ctx, workspace.Ref{ID: e.ID, Root: root}, title)
	if err != nil {
		s.hostProblem(w, "create a conversation in "+rootLabel(root), err, crumb{Text: "Back", URL: checkoutURL(e.ID, root)})
		return
	}
	http.Redirect(w, r, conversationURL(e.ID, root, id), http.StatusSeeOther)
}

// rootState is a live checkout as the page script sees it.
type rootState struct {
	Path     string    `json:"path"`
	LastUsed time.Time `json:"last_used"`
}

// pageState is what the conversation page's script starts from.
type pageState struct {
	Workspace    string                 `json:"workspace"`
	Viewed       string                 `json:"viewed"`
	Conversation string                 `json:"conversation"`
	Roots        []rootState            `json:"roots"`
	Record       *conversation.LastRoot `json:"record"`
	Fresh        bool                   `json:"fresh"`
	// Default: the default workspace, which has no checkout: its turns
	// run with root "".
	Default bool   `json:"default,omitempty"`
	Running string `json:"running"`
	// Count is how many stored events the page shows: its watch
	// (live.go) follows the conversation from there.
	Count int `json:"count"`
	// Queue is how a reply queued during a turn is sent (live.go).
	Queue queueRules `json:"queue"`
	// Recall is what Up recalls in the message box, newest first: this
	// conversation's messages, then the session's history (live.go).
	Recall []string `json:"recall"`
	// Draft is the conversation's draft, which the message box starts
	// from and saves into; DraftError says why jp could not read it (the
	// box then starts from what the browser kept).
	Draft      draftState `json:"draft"`
	DraftError string     `json:"draft_error,omitempty"`
}

// conversationView is the conversation page's data.
type conversationView struct {
	Workspace plugin.WorkspaceEntry
	Root      string
	Summary   plugin.ConversationSummary
	Events    []template.HTML
	Where     where
	State     string
}

func (s *Server) conversationPage(w http.ResponseWriter, r *http.Request) {
	e, root, ok := s.checkout(w, r)
	if !ok {
		return
	}
	conv := r.PathValue("conv")
	back := crumb{Text: "Conversations", URL: checkoutURL(e.ID, root)}
	if _, err := conversation.ParseID(conv); err != nil {
		s.problem(w, http.StatusBadRequest, err.Error(), back)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	ref := workspace.Ref{ID: e.ID, Root: root}
	evs, err := s.host.ReadEvents(ctx, ref, conv)
	if err != nil {
		s.hostProblem(w, "read conversation "+conv, err, back)
		return
	}
	events, err := decodeEvents(evs.Data)
	if err != nil {
		s.problem(w, http.StatusInternalServerError, err.Error(), back)
		return
	}
	convs, err := s.host.ListConversations(ctx, ref)
	if err != nil {
		s.hostProblem(w, "list the conversations of "+rootLabel(root), err, back)
		return
	}
	sum := plugin.ConversationSummary{ID: conv}
	for _, c := range convs {
		if c.ID == conv {
			sum = c
		}
	}
	record := evs.LastRoot
	if record != nil && record.Live == nil {
		live := recordLive(record, e.Roots)
		record.Live = &live
	}
	st := pageState{Workspace: e.ID, Viewed: root, Conversation: conv, Record: record,
		Fresh: len(evs.Data) == 0, Count: storedCount(events), Running: s.turns.runningOn(e.ID, conv), Default: e.Default || isDefault(e.ID)}
	for _, rt := range e.Roots {
		st.Roots = append(st.Roots, rootState{Path: rt.Path, LastUsed: rt.LastUsed})
	}
	st.Queue = s.readQueueRules(ctx, ref)
	st.Recall = s.recall(ctx, events)
	if d, err := s.host.ReadDraft(ctx, ref, conv); err != nil {
		s.log("read the draft of " + conv + ": " + err.Error())
		st.DraftError = "jp could not read the conversation's draft: " + hostMessage(err)
	} else {
		st.Draft = draftState{Text: d.Text, Revision: d.Revision}
	}
	stateJSON, err := json.Marshal(st)
	if err != nil {
		s.problem(w, http.StatusInternalServerError, err.Error(), back)
		return
	}
	v := conversationView{Workspace: e, Root: root, Summary: sum, Where: whereOf(record, root, e.Roots), State: string(stateJSON)}
	for _, ev := range events {
		h, err := s.renderEvent(ev)
		if err != nil {
			s.problem(w, http.StatusInternalServerError, err.Error(), back)
			return
		}
		v.Events = append(v.Events, h)
	}
	title := sum.Title
	if title == "" {
		title = "Untitled conversation"
	}
	s.render(w, http.StatusOK, "conversation", page{
		Title: title,
		Crumbs: []crumb{home, {Text: e.Slug, URL: "/#ws-" + e.ID, Title: "workspace " + e.ID},
			{Text: rootLabel(root), URL: checkoutURL(e.ID, root)}, {Text: title}},
		Data: v,
	})
}
