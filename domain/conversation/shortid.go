package conversation

import (
	"slices"
)

// ShortIDs gives each of ids the shortest prefix that names it alone among
// ids, never shorter than minLen (nor longer than the ID), the way git
// abbreviates hashes: what a listing shows so the shown form can be typed
// back as a unique prefix.
func ShortIDs(ids []ID, minLen int) map[ID]string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(map[ID]string, len(sorted))
	for i, id := range sorted {
		n := minLen
		if i > 0 {
			n = max(n, commonPrefix(sorted[i-1], id)+1)
		}
		if i+1 < len(sorted) {
			n = max(n, commonPrefix(id, sorted[i+1])+1)
		}
		out[id] = string(id)[:min(n, len(id))]
	}
	return out
}

// commonPrefix is the length of the prefix a and b share.
func commonPrefix(a, b ID) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
