package attach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/internal/safetext"
)

// A gh: attachment is a GitHub pull request, fetched through the GitHub
// REST API as the Rust jp's handler renders it:
//
//	gh://OWNER/REPO/pull/N/diff     title, description, refs and the unified diff
//	gh://OWNER/REPO/pull/N/reviews  the reviews and inline review comments
//	gh:pull/N/diff, gh:pull/N/reviews  the same, for the checkout's GitHub origin
//
// ?exclude=GLOB,... leaves more files out of a diff (on top of lock files,
// snapshots, fixtures and minified JavaScript), ?no_defaults=true keeps
// only those; ?include_outdated=true keeps outdated review comments.
// The token is JP_GITHUB_TOKEN or GITHUB_TOKEN; JP_GITHUB_API_URL replaces
// https://api.github.com (for GitHub Enterprise, or a test server).

// GitHubAPI is the default base URL of the GitHub REST API.
const GitHubAPI = "https://api.github.com"

// ghDefaultExcludes are the files a diff leaves out unless no_defaults.
var ghDefaultExcludes = []string{
	"**/*.snap", "**/snapshots/**", "**/fixtures/**", "Cargo.lock", "**/Cargo.lock",
	"package-lock.json", "**/package-lock.json", "yarn.lock", "**/yarn.lock",
	"pnpm-lock.yaml", "**/pnpm-lock.yaml", "**/*.min.js",
}

// ghSpec is a parsed gh: spec.
type ghSpec struct {
	owner, repo     string
	number          int
	reviews         bool // else diff
	excludes        []string
	noDefaults      bool
	includeOutdated bool
}

var ghName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+$`) })

// parseGHSpec reads a gh: spec; the shortform takes its owner and repo
// from origin(), the checkout's GitHub remote.
func parseGHSpec(spec string, origin func() (string, string, error)) (ghSpec, error) {
	usage := "give gh://OWNER/REPO/pull/N/diff, gh://OWNER/REPO/pull/N/reviews, or gh:pull/N/diff or gh:pull/N/reviews for the checkout's GitHub repository"
	bad := func(why string) (ghSpec, error) {
		return ghSpec{}, fmt.Errorf("%s: %s", safetext.String(spec), why)
	}
	rest := strings.TrimPrefix(spec, "gh:")
	rest, query, _ := strings.Cut(rest, "?")
	var out ghSpec
	var segs []string
	switch {
	case strings.HasPrefix(rest, "//"):
		segs = strings.Split(strings.Trim(rest[2:], "/"), "/")
		if len(segs) != 5 {
			return bad(usage)
		}
		out.owner, out.repo, segs = segs[0], segs[1], segs[2:]
	case strings.HasPrefix(rest, "/"):
		return bad(usage)
	default:
		segs = strings.Split(strings.Trim(rest, "/"), "/")
		if len(segs) != 3 {
			return bad(usage)
		}
	}
	if segs[0] != "pull" || (segs[2] != "diff" && segs[2] != "reviews") {
		return bad(usage)
	}
	n, err := strconv.Atoi(segs[1])
	if err != nil || n <= 0 {
		return bad(fmt.Sprintf("invalid pull request number %q", segs[1]))
	}
	out.number, out.reviews = n, segs[2] == "reviews"
	q, err := url.ParseQuery(query)
	if err != nil {
		return bad(err.Error())
	}
	for k, vs := range q {
		v := vs[len(vs)-1]
		yes := v == "true" || v == "1" || v == "yes"
		switch k {
		case "exclude":
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					if !doublestar.ValidatePattern(p) {
						return bad(fmt.Sprintf("invalid exclude pattern %q", p))
					}
					out.excludes = append(out.excludes, p)
				}
			}
		case "no_defaults":
			out.noDefaults = yes
		case "include_outdated":
			out.includeOutdated = yes
		default:
			return bad(fmt.Sprintf("unknown query parameter %q (exclude, no_defaults or include_outdated)", k))
		}
	}
	if out.owner == "" {
		if out.owner, out.repo, err = origin(); err != nil {
			return bad(err.Error())
		}
	}
	if !ghName().MatchString(out.owner) || !ghName().MatchString(out.repo) || strings.Trim(out.owner, ".") == "" || strings.Trim(out.repo, ".") == "" {
		return bad("invalid owner or repository name")
	}
	return out, nil
}

// githubOrigin reads the GitHub owner and repository of the checkout's
// origin remote from its .git/config.
func githubOrigin(root string) (string, string, error) {
	fail := errors.New("the checkout has no GitHub origin remote: give gh://OWNER/REPO/pull/N/diff")
	if root == "" {
		return "", "", fail
	}
	data, err := os.ReadFile(filepath.Join(root, ".git", "config"))
	if err != nil {
		return "", "", fail
	}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			in = t == `[remote "origin"]`
			continue
		}
		k, v, ok := strings.Cut(t, "=")
		if !in || !ok || strings.TrimSpace(k) != "url" {
			continue
		}
		m := regexp.MustCompile(`github\.com[:/]([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(\.git)?/?$`).FindStringSubmatch(strings.TrimSpace(v))
		if m == nil {
			return "", "", fail
		}
		return m[1], m[2], nil
	}
	return "", "", fail
}

// ghUser, ghRef, ghPull, ghReview, ghComment and ghFile are the fields jp
// reads of the GitHub REST API's objects.
type ghUser struct {
	Login string `json:"login"`
}

type ghRef struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

type ghPull struct {
	Number       int     `json:"number"`
	Title        string  `json:"title"`
	Body         *string `json:"body"`
	HTMLURL      string  `json:"html_url"`
	User         *ghUser `json:"user"`
	Head         *ghRef  `json:"head"`
	Base         *ghRef  `json:"base"`
	MergedAt     *string `json:"merged_at"`
	ClosedAt     *string `json:"closed_at"`
	ChangedFiles int     `json:"changed_files"`
}

type ghReview struct {
	ID    int64   `json:"id"`
	User  *ghUser `json:"user"`
	Body  string  `json:"body"`
	State string  `json:"state"`
}

type ghComment struct {
	ID                  int64   `json:"id"`
	PullRequestReviewID *int64  `json:"pull_request_review_id"`
	InReplyToID         *int64  `json:"in_reply_to_id"`
	User                *ghUser `json:"user"`
	Body                string  `json:"body"`
	Path                string  `json:"path"`
	Position            *int    `json:"position"`
	Line                *int    `json:"line"`
	OriginalLine        *int    `json:"original_line"`
	StartLine           *int    `json:"start_line"`
	OriginalStartLine   *int    `json:"original_start_line"`
	Side                *string `json:"side"`
	StartSide           *string `json:"start_side"`
}

// outdated: GitHub's REST API clears line and position of a comment whose
// line the diff no longer has.
func (c ghComment) outdated() bool { return c.Line == nil && c.Position == nil }

type ghFile struct {
	Filename         string  `json:"filename"`
	Status           string  `json:"status"`
	Additions        int     `json:"additions"`
	Deletions        int     `json:"deletions"`
	Changes          int     `json:"changes"`
	Patch            *string `json:"patch"`
	PreviousFilename string  `json:"previous_filename"`
}

// ghClient calls the GitHub REST API.
type ghClient struct {
	hc    *http.Client
	base  string
	token string
}

// errNotAcceptable is the 406 GitHub answers for a diff over 20,000 lines.
var errNotAcceptable = errors.New("406 Not Acceptable")

// get fetches path with accept, up to the size limit of a page, into out
// (JSON) or as text.
func (c ghClient) get(ctx context.Context, path, accept string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", "jp")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		// The URL error names the URL, never the header.
		return nil, errors.Unwrap(err)
	}
	defer func() { _ = res.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(res.Body, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if res.StatusCode == http.StatusNotAcceptable {
		return nil, errNotAcceptable
	}
	if res.StatusCode/100 != 2 {
		var msg struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(data, &msg)
		hint := ""
		switch res.StatusCode {
		case http.StatusUnauthorized:
			hint = " (check JP_GITHUB_TOKEN or GITHUB_TOKEN)"
		case http.StatusNotFound, http.StatusForbidden:
			if c.token == "" {
				hint = " (a private repository needs JP_GITHUB_TOKEN or GITHUB_TOKEN)"
			}
		}
		return nil, fmt.Errorf("GitHub API %s: HTTP %s: %s%s", path, res.Status, safetext.String(msg.Message), hint)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("GitHub API %s: the response is over the %s limit for an attached page", path, size(MaxFileBytes))
	}
	return data, nil
}

func (c ghClient) getJSON(ctx context.Context, path string, out any) error {
	data, err := c.get(ctx, path, "application/vnd.github+json")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("GitHub API %s: unexpected response: %v", path, err)
	}
	return nil
}

// pages fetches up to 10 pages of 100 items of a list endpoint.
func pages[T any](ctx context.Context, c ghClient, path string) ([]T, error) {
	var out []T
	for page := 1; page <= 10; page++ {
		var batch []T
		if err := c.getJSON(ctx, fmt.Sprintf("%s?per_page=100&page=%d", path, page), &batch); err != nil {
			return nil, err
		}
		out = append(out, batch...)
		if len(batch) < 100 {
			break
		}
	}
	return out, nil
}

// github fetches a gh: spec.
func (a *Attacher) github(ctx context.Context, root, spec string) (conversation.Attachment, error) {
	gs, err := parseGHSpec(spec, func() (string, string, error) { return githubOrigin(root) })
	if err != nil {
		return conversation.Attachment{}, err
	}
	getenv := a.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	token := getenv("JP_GITHUB_TOKEN")
	if token == "" {
		token = getenv("GITHUB_TOKEN")
	}
	base := strings.TrimSuffix(getenv("JP_GITHUB_API_URL"), "/")
	if base == "" {
		base = GitHubAPI
	}
	hc := a.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: URLTimeout}
	}
	c := ghClient{hc: hc, base: base, token: token}
	var body string
	if gs.reviews {
		body, err = c.reviews(ctx, spec, gs)
	} else {
		body, err = c.diff(ctx, spec, gs)
	}
	if err != nil {
		return conversation.Attachment{}, fmt.Errorf("%s: %w", safetext.String(spec), err)
	}
	return content(spec, []byte(body))
}

func (c ghClient) diff(ctx context.Context, spec string, gs ghSpec) (string, error) {
	prPath := fmt.Sprintf("/repos/%s/%s/pulls/%d", gs.owner, gs.repo, gs.number)
	var pr ghPull
	if err := c.getJSON(ctx, prPath, &pr); err != nil {
		return "", err
	}
	patterns := gs.excludes
	if !gs.noDefaults {
		patterns = append(slices.Clone(ghDefaultExcludes), gs.excludes...)
	}
	var text, notice string
	var included, excluded int
	raw, err := c.get(ctx, prPath, "application/vnd.github.diff")
	switch {
	case err == nil:
		text, included, excluded = filterDiff(string(raw), patterns)
	case errors.Is(err, errNotAcceptable):
		files, err := pages[ghFile](ctx, c, prPath+"/files")
		if err != nil {
			return "", err
		}
		var truncated int
		text, included, excluded, truncated = synthesizeDiff(files, patterns)
		notice = fmt.Sprintf("Note: PR diff exceeded GitHub's 20,000-line cap; reconstructed from the paginated /pulls/%d/files endpoint.", gs.number)
		if truncated > 0 {
			notice += fmt.Sprintf(" %d file(s) had their patch omitted by GitHub (too large or binary); the `diff --git` headers are still present.", truncated)
		}
		if dropped := pr.ChangedFiles - len(files); dropped > 0 {
			notice += fmt.Sprintf(" %d additional changed file(s) beyond the %d-file cap were not fetched; the reconstructed diff is incomplete.", dropped, len(files))
		}
	default:
		return "", err
	}
	return diffHeader(spec, pr, included, excluded, gs, notice) + "\n\n" + text, nil
}

func matchesAny(path string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := doublestar.Match(p, path); ok {
			return true
		}
	}
	return false
}

// filterDiff drops the files of a unified diff that match patterns.
func filterDiff(diff string, patterns []string) (string, int, int) {
	var out, cur strings.Builder
	curPath, inFile := "", false
	included, excluded := 0, 0
	flush := func() {
		if !inFile {
			return
		}
		if matchesAny(curPath, patterns) {
			excluded++
		} else {
			out.WriteString(cur.String())
			included++
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(diff, "\n") {
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "diff --git a/"); ok {
			flush()
			curPath, _, _ = strings.Cut(rest, " b/")
			inFile = true
		}
		if !inFile {
			out.WriteString(line)
			continue
		}
		cur.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			cur.WriteByte('\n')
		}
	}
	flush()
	return out.String(), included, excluded
}

// synthesizeDiff builds a diff from /pulls/N/files entries.
func synthesizeDiff(files []ghFile, patterns []string) (string, int, int, int) {
	var b strings.Builder
	included, excluded, truncated := 0, 0, 0
	for _, f := range files {
		if matchesAny(f.Filename, patterns) {
			excluded++
			continue
		}
		renamed := (f.Status == "renamed" || f.Status == "copied") && f.PreviousFilename != ""
		a := f.Filename
		if renamed {
			a = f.PreviousFilename
		}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", a, f.Filename)
		if renamed {
			label := "rename"
			if f.Status == "copied" {
				label = "copy"
			}
			fmt.Fprintf(&b, "%s from %s\n%s to %s\n", label, f.PreviousFilename, label, f.Filename)
		}
		if f.Patch != nil {
			b.WriteString(*f.Patch)
			if !strings.HasSuffix(*f.Patch, "\n") {
				b.WriteByte('\n')
			}
		} else {
			truncated++
			fmt.Fprintf(&b, "[patch omitted by GitHub: file is binary or exceeds the per-file Files API limit; status=%s, +%d/-%d (%d changes)]\n", f.Status, f.Additions, f.Deletions, f.Changes)
		}
		included++
	}
	return b.String(), included, excluded, truncated
}

func diffHeader(spec string, pr ghPull, included, excluded int, gs ghSpec, notice string) string {
	title := pr.Title
	if title == "" {
		title = "(no title)"
	}
	author := "(unknown)"
	if pr.User != nil {
		author = pr.User.Login
	}
	ref := func(r *ghRef) string {
		if r == nil {
			return "(unknown)"
		}
		sha := r.SHA
		if len(sha) > 7 {
			sha = sha[:7]
		}
		if r.Ref == "" {
			return sha
		}
		return fmt.Sprintf("%s (%s)", r.Ref, sha)
	}
	state := "open"
	switch {
	case pr.MergedAt != nil:
		state = "merged"
	case pr.ClosedAt != nil:
		state = "closed"
	}
	var filter string
	switch {
	case len(gs.excludes) == 0 && !gs.noDefaults:
		filter = fmt.Sprintf("Files included: %d, excluded by default filter: %d.", included, excluded)
	case gs.noDefaults:
		filter = fmt.Sprintf("Files included: %d, excluded by `?exclude` only: %d (defaults disabled).", included, excluded)
	default:
		filter = fmt.Sprintf("Files included: %d, excluded by defaults + `?exclude`: %d.", included, excluded)
	}
	if notice != "" {
		filter += "\n" + notice
	}
	bodySection := ""
	if pr.Body != nil && strings.TrimSpace(*pr.Body) != "" {
		bodySection = "\n\n---\n\n" + strings.TrimSpace(*pr.Body)
	}
	return fmt.Sprintf("PR #%d: %s\n\nSource: %s\nURL:    %s\nAuthor: %s\nState:  %s\nBase:   %s\nHead:   %s\n\n%s%s",
		pr.Number, title, spec, pr.HTMLURL, author, state, ref(pr.Base), ref(pr.Head), filter, bodySection)
}

func (c ghClient) reviews(ctx context.Context, spec string, gs ghSpec) (string, error) {
	prPath := fmt.Sprintf("/repos/%s/%s/pulls/%d", gs.owner, gs.repo, gs.number)
	reviews, err := pages[ghReview](ctx, c, prPath+"/reviews")
	if err != nil {
		return "", err
	}
	comments, err := pages[ghComment](ctx, c, prPath+"/comments")
	if err != nil {
		return "", err
	}
	hidden := 0
	if !gs.includeOutdated {
		kept := comments[:0]
		for _, cm := range comments {
			if cm.outdated() {
				hidden++
				continue
			}
			kept = append(kept, cm)
		}
		comments = kept
	}
	return renderReviews(spec, gs.number, reviews, comments, hidden), nil
}

func login(u *ghUser) string {
	if u == nil {
		return "(unknown)"
	}
	return u.Login
}

func reviewState(r ghReview) string {
	switch r.State {
	case "PENDING":
		return "pending"
	case "COMMENTED":
		return "submitted, comment"
	case "APPROVED":
		return "submitted, approved"
	case "CHANGES_REQUESTED":
		return "submitted, changes requested"
	case "DISMISSED":
		return "dismissed"
	}
	return "submitted"
}

func renderReviews(spec string, number int, reviews []ghReview, comments []ghComment, hidden int) string {
	pending := 0
	for _, r := range reviews {
		if r.State == "PENDING" {
			pending++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "PR #%d reviews: %d submitted", number, len(reviews)-pending)
	if pending > 0 {
		fmt.Fprintf(&b, ", %d pending (yours)", pending)
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "\n%d outdated comment(s) hidden; pass `?include_outdated=true` to include them.", hidden)
	}
	fmt.Fprintf(&b, "\n\nSource: %s\n", spec)
	if len(reviews) == 0 && len(comments) == 0 {
		b.WriteString("\n---\n\nNo reviews or inline comments yet.\n")
		return b.String()
	}
	b.WriteString("\n---\n\nReviews:\n\n")
	if len(reviews) == 0 {
		b.WriteString("(no review summaries)\n")
	}
	renderReviewSummaries(&b, reviews)
	b.WriteString("\n---\n\nInline comments by file:\n")
	if len(comments) == 0 {
		b.WriteString("\n(no inline comments)\n")
		return b.String()
	}
	renderInlineComments(&b, reviews, comments)
	return b.String()
}

// renderReviewSummaries writes each review's summary, oldest first.
func renderReviewSummaries(b *strings.Builder, reviews []ghReview) {
	sorted := slices.Clone(reviews)
	slices.SortFunc(sorted, func(x, y ghReview) int { return int(x.ID - y.ID) })
	for _, r := range sorted {
		body := strings.TrimSpace(r.Body)
		switch {
		case strings.Contains(body, "\n"):
			fmt.Fprintf(b, "- **%s** (%s):\n", login(r.User), reviewState(r))
			for _, l := range strings.Split(body, "\n") {
				fmt.Fprintf(b, "  > %s\n", l)
			}
		case body != "":
			fmt.Fprintf(b, "- **%s** (%s): %s\n", login(r.User), reviewState(r), body)
		default:
			fmt.Fprintf(b, "- **%s** (%s): (no summary)\n", login(r.User), reviewState(r))
		}
	}
}

// renderInlineComments writes the top-level inline comments by file and
// anchor (ordered by path, line, ID), each followed by its replies.
func renderInlineComments(b *strings.Builder, reviews []ghReview, comments []ghComment) {
	byReview := map[int64]ghReview{}
	for _, r := range reviews {
		byReview[r.ID] = r
	}
	replies := map[int64][]ghComment{}
	var top []ghComment
	for _, cm := range comments {
		if cm.InReplyToID != nil {
			replies[*cm.InReplyToID] = append(replies[*cm.InReplyToID], cm)
		} else {
			top = append(top, cm)
		}
	}
	lineOf := func(c ghComment) int {
		if c.Line != nil {
			return *c.Line
		}
		return 0
	}
	slices.SortFunc(top, func(x, y ghComment) int {
		if x.Path != y.Path {
			return strings.Compare(x.Path, y.Path)
		}
		if lineOf(x) != lineOf(y) {
			return lineOf(x) - lineOf(y)
		}
		return int(x.ID - y.ID)
	})
	curPath, curAnchor := "", ""
	for i, cm := range top {
		if i == 0 || cm.Path != curPath {
			curPath, curAnchor = cm.Path, ""
			fmt.Fprintf(b, "\n## %s\n", cm.Path)
		}
		if a := anchor(cm); a != curAnchor {
			curAnchor = a
			fmt.Fprintf(b, "\n### %s\n\n", a)
		}
		renderComment(b, cm, byReview, false)
		rs := replies[cm.ID]
		slices.SortFunc(rs, func(x, y ghComment) int { return int(x.ID - y.ID) })
		for _, r := range rs {
			renderComment(b, r, byReview, true)
		}
	}
}

func renderComment(b *strings.Builder, c ghComment, byReview map[int64]ghReview, reply bool) {
	var parent *ghReview
	if c.PullRequestReviewID != nil {
		if r, ok := byReview[*c.PullRequestReviewID]; ok {
			parent = &r
		}
	}
	pending := parent != nil && parent.State == "PENDING"
	var label string
	switch {
	case reply && pending:
		label = "reply, pending"
	case reply && parent != nil:
		label = "reply, " + reviewState(*parent)
	case reply:
		label = "reply"
	case pending:
		label = "pending"
	case parent != nil:
		label = reviewState(*parent)
	default:
		label = "submitted"
	}
	if c.outdated() {
		label += ", outdated"
	}
	bullet, indent := "-", "  > "
	if reply {
		bullet, indent = "  -", "    > "
	}
	lines := strings.Split(strings.TrimRight(c.Body, "\n"), "\n")
	if len(lines) <= 1 {
		fmt.Fprintf(b, "%s **%s** (%s, id=%d): %s\n", bullet, login(c.User), label, c.ID, strings.TrimSpace(c.Body))
		return
	}
	fmt.Fprintf(b, "%s **%s** (%s, id=%d):\n", bullet, login(c.User), label, c.ID)
	for _, l := range lines {
		fmt.Fprintf(b, "%s%s\n", indent, l)
	}
}

func anchor(c ghComment) string {
	line, start := c.Line, c.StartLine
	if line == nil {
		line = c.OriginalLine
	}
	if start == nil {
		start = c.OriginalStartLine
	}
	side := "RIGHT"
	if c.Side != nil {
		side = *c.Side
	}
	suffix := ""
	if c.outdated() {
		suffix = ", outdated"
	}
	switch {
	case start != nil && line != nil && *start != *line:
		if c.StartSide != nil && *c.StartSide != side {
			return fmt.Sprintf("Lines %d(%s)-%d(%s%s)", *start, *c.StartSide, *line, side, suffix)
		}
		return fmt.Sprintf("Lines %d-%d (%s%s)", *start, *line, side, suffix)
	case line != nil:
		return fmt.Sprintf("Line %d (%s%s)", *line, side, suffix)
	}
	return "(no anchor) on path " + c.Path
}
