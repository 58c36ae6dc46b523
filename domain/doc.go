// Package domain is the pure core of jp: values, state machines and rules,
// one package per concept. Nothing here does I/O; see docs/architecture.md.
package domain
