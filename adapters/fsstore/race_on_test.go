//go:build race

package fsstore

// raceBuild: the tests run under the race detector, which makes a pass
// over a 20 MB text about ten times slower.
const raceBuild = true
