// Package gfm holds goldmark's GitHub table and strikethrough extensions,
// copied unchanged from github.com/yuin/goldmark v1.8.7 (extension/table.go
// and extension/strikethrough.go, MIT licence in LICENSE here).
//
// Why a copy: importing goldmark's extension package links every
// extension it has, and its package init compiles linkify's large URL
// regular expressions whether they are used or not. That added about
// 2 ms of CPU to every jp start (jp --version: 19.4 ms against 17.2 ms
// median CPU time, measured interleaved); these two files alone add
// four small regular expressions. To update, copy the two files from
// the goldmark version in go.mod and change only the package clause.
package gfm
