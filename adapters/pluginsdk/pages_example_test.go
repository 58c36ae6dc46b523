package pluginsdk_test

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/plugin"
)

// A plugin that counts a conversation's events a page at a time: it
// keeps only its count, however long the conversation. A scripted jp
// answers two pages of two events and one, and the example prints what
// the plugin sends.
func ExampleClient_EventPages() {
	manifest := plugin.Manifest{Name: "count-events", Version: "1.0.0", Description: "Count events",
		Command: []string{"count-events"}, ProtocolVersion: plugin.ProtocolVersion}
	run := func(ctx context.Context, c *pluginsdk.Client) error {
		n := 0
		for page, err := range c.EventPages(ctx, "17127583920", 2) {
			if err != nil {
				return err
			}
			n += len(page.Data)
		}
		return c.Print(fmt.Sprintf("%d events\n", n))
	}

	toPlugin, jpOut := io.Pipe()
	fromPlugin, pluginOut := io.Pipe()
	go func() {
		pluginsdk.Run(context.Background(), toPlugin, pluginOut, io.Discard, manifest, run)
		pluginOut.Close()
	}()
	answers := []string{
		`{"type":"events","id":"1","conversation":"17127583920","data":[{"type":"turn_start","id":"e1"},{"type":"chat_request","id":"e2"}],"next_offset":2,"more":true}`,
		`{"type":"events","id":"2","conversation":"17127583920","data":[{"type":"turn_end","id":"e3"}],"next_offset":3}`,
	}
	fmt.Fprintln(jpOut, `{"type":"init","version":2,"options":{},"args":[],"log_level":1,"output_format":"text","paths":{"user_data":"/d","user_config":"/c"}}`)
	sc := bufio.NewScanner(fromPlugin)
	for sc.Scan() {
		fmt.Println(sc.Text())
		if len(answers) > 0 && sc.Text() != `{"type":"ready","protocol":2}` {
			fmt.Fprintln(jpOut, answers[0])
			answers = answers[1:]
		}
		if sc.Text() == `{"type":"exit","code":0}` {
			jpOut.Close()
		}
	}
	// Output:
	// {"type":"ready","protocol":2}
	// {"type":"read_events","id":"1","conversation":"17127583920","offset":0,"limit":2}
	// {"type":"read_events","id":"2","conversation":"17127583920","offset":2,"limit":2}
	// {"type":"print","text":"3 events\n"}
	// {"type":"exit","code":0}
}
