// Package app holds jp's use cases: one type per user-visible job, each
// composed from ports and holding no globals. The CLI in cmd/jp parses
// flags and calls these; wire/ builds them. See docs/architecture.md.
package app
