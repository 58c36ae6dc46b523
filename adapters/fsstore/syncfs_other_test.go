//go:build !unix

package fsstore

func flushAll() {}
