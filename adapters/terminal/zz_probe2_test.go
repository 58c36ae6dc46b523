package terminal

import (
	"os"
	"strconv"
	"testing"

	"github.com/jpcli/jp/ports"
)

func FuzzProbe(f *testing.F) {
	f.Add(benchDoc, uint8(60))
	f.Fuzz(func(t *testing.T, in string, width uint8) {
		_ = os.WriteFile("/tmp/lastinput."+strconv.Itoa(os.Getpid()), []byte(strconv.Itoa(int(width))+"\n"+in), 0o644)
		for _, th := range []*theme{newTheme("dark", false), newTheme("light", true), newTheme("notty", false)} {
			checkRendered(t, in, renderMarkdown(in, int(width), th))
		}
		p, _ := ttyPrinter(max(int(width), 1), 10)
		cut := len(in) / 2
		p.Write(ports.ChannelContent, in[:cut])
		p.Write(ports.ChannelContent, in[cut:])
		p.EndBlock(ports.ChannelContent)
	})
}
