//go:build !unix

package fsstore

import "io/fs"

// fileID is 0 where inode numbers are not available; revisions then rest
// on content and modification time.
func fileID(fs.FileInfo) uint64 { return 0 }
