package app

import (
	"context"
	"strings"
	"time"
)

// checkpointEvery is the longest a streamed block's text waits before it
// reaches its checkpoint: what a SIGKILL can lose of the block in flight.
const checkpointEvery = 200 * time.Millisecond

// blockCheckpoint is what the run has checkpointed of the block being
// streamed. The zero value is "no block": the next delta starts one.
type blockCheckpoint struct {
	active    bool            // the store holds a checkpoint of this block
	reasoning bool            // the block is reasoning, not message text
	pending   strings.Builder // streamed text not checkpointed yet
	last      time.Time       // when the checkpoint was last written
}

// checkpoint adds one delta of the block in flight to its checkpoint: the
// first delta of a block at once, then what arrived at most every
// checkpointEvery (one small append, never an fsync, per write). A failed
// checkpoint never stops the turn; its text is tried again with the next
// delta.
func (q *Query) checkpoint(ctx context.Context, rs *runState, text string, reasoning bool) {
	if q.ckpts == nil || text == "" {
		return
	}
	c := &rs.ckpt
	fresh := !c.active || c.reasoning != reasoning
	if fresh && c.active {
		// A block of the other kind without a recorded event between:
		// start over (the machine records the previous block first).
		c.pending.Reset()
	}
	c.pending.WriteString(text)
	now := q.clock.Now()
	if !fresh && now.Sub(c.last) < checkpointEvery {
		return
	}
	err := q.ckpts.CheckpointBlock(context.WithoutCancel(ctx), rs.loc, rs.id, c.pending.String(), reasoning, fresh)
	if err != nil {
		return
	}
	c.pending.Reset()
	c.active, c.reasoning, c.last = true, reasoning, now
}

// flushCheckpoint writes what the checkpoint of the block in flight has
// not written yet, at the block's end: the end of the stream. The block's
// event may be recorded only with the next turn's start (a queued reply
// sent at once carries the turn's end to it), and until then the
// checkpoint must hold the whole block, not what the last write some
// 200 ms earlier had.
func (q *Query) flushCheckpoint(ctx context.Context, rs *runState) {
	c := &rs.ckpt
	if q.ckpts == nil || c.pending.Len() == 0 {
		return
	}
	err := q.ckpts.CheckpointBlock(context.WithoutCancel(ctx), rs.loc, rs.id, c.pending.String(), c.reasoning, !c.active)
	if err != nil {
		return
	}
	c.pending.Reset()
	c.active, c.last = true, q.clock.Now()
}
