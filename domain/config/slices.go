package config

// mapSlice returns f applied to every element of s.
func mapSlice[T, U any](s []T, f func(T) U) []U {
	out := make([]U, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// filterKeys returns the keys of m for which keep is true, in no order.
func filterKeys[V any](m map[string]V, keep func(string) bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if keep(k) {
			out = append(out, k)
		}
	}
	return out
}
