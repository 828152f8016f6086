package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// quoted lists values as `a`, `b` for documentation.
func quoted(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "`" + v + "`"
	}
	return strings.Join(q, ", ")
}

// modelSource is where a handler reads its model: a plan, a state or a
// configuration.
type modelSource interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// withTimeouts is a model with a timeouts block.
type withTimeouts interface{ timeoutsValue() timeouts.Value }

// Operations whose timeouts a handler call honours.
const (
	opNone   = ""
	opCreate = "create"
	opUpdate = "update"
	opDelete = "delete"
)

// handlerCall is what every handler starts from: its model, the engine,
// and a context bounded by the operation's timeout.
type handlerCall[M any] struct {
	Model  M
	Engine *engine.Engine
	Ctx    context.Context
	cancel context.CancelFunc
	// timeout describes the bound of Ctx for messages: the timeouts
	// block's value, or the default.
	timeout string
}

// done releases the call's context.
func (c *handlerCall[M]) done() {
	if c.cancel != nil {
		c.cancel()
	}
}

// begin is the preamble of every handler: it reads the model from src,
// gets the engine and, for op (opCreate, opUpdate, opDelete), bounds the
// context by the model's timeout for op, def when it sets none. It returns
// nil when diags has errors; otherwise the caller defers done.
func begin[M any](ctx context.Context, set *configured, src modelSource, diags *diag.Diagnostics, op string, def time.Duration) *handlerCall[M] {
	c := &handlerCall[M]{Ctx: ctx}
	diags.Append(src.Get(ctx, &c.Model)...)
	e, d := engineOf(set)
	diags.Append(d...)
	c.Engine = e
	if diags.HasError() {
		return nil
	}
	if op == opNone {
		return c
	}
	timeout := def
	c.timeout = fmt.Sprintf("the default %s timeout, %s", op, shortDuration(def))
	if m, ok := any(c.Model).(withTimeouts); ok {
		var d diag.Diagnostics
		if set := timeoutSet(m.timeoutsValue(), op); set != "" {
			c.timeout = fmt.Sprintf("timeouts.%s = %q", op, set)
		}
		switch t := m.timeoutsValue(); op {
		case opCreate:
			timeout, d = t.Create(ctx, def)
		case opUpdate:
			timeout, d = t.Update(ctx, def)
		case opDelete:
			timeout, d = t.Delete(ctx, def)
		}
		diags.Append(d...)
		if diags.HasError() {
			return nil
		}
	}
	c.Ctx, c.cancel = context.WithTimeout(ctx, timeout)
	return c
}

// timedOut says whether the call's own timeout ended its context: not an
// interrupt, which cancels the RPC's (rpcCtx).
func (c *handlerCall[M]) timedOut(rpcCtx context.Context) bool {
	return !interrupted(rpcCtx) && errors.Is(c.Ctx.Err(), context.DeadlineExceeded)
}

// timeoutSet is the value the timeouts block t sets for op, or "".
func timeoutSet(t timeouts.Value, op string) string {
	if t.IsNull() || t.IsUnknown() {
		return ""
	}
	v, ok := t.Attributes()[op].(types.String)
	if !ok || v.IsNull() || v.IsUnknown() {
		return ""
	}
	return v.ValueString()
}

// interrupted says whether the handler's RPC was cancelled: Terraform
// stopped the provider (Ctrl-C). The resource's own timeout ends only the
// handler's bounded context, not the RPC's.
func interrupted(rpcCtx context.Context) bool { return rpcCtx.Err() != nil }

// recordInterrupted is the interrupted-create protocol of every resource.
// After a create that failed or was interrupted once the object existed,
// read reads it (on a context that outlives the cancelled RPC), records it
// in the state as it is, and says where it stands. After an interrupt
// (Ctrl-C) of an object that can still finish, a warning takes the place
// of the error: the object is not tainted, and the next apply waits for it
// (an update in place) instead of recreating it. It returns where the
// object stands (zero when it could not be read) and whether it warned;
// when it did not, the handler reports its error (addCreateTimedOut, when
// the create's own timeout ended it).
func recordInterrupted(ctx context.Context, kind, id string, read func(context.Context) (kernel.Progress, error), diags *diag.Diagnostics) (kernel.Progress, bool) {
	rctx, cancel := recordContext(ctx)
	defer cancel()
	progress, err := read(rctx)
	if err != nil {
		tflog.Warn(ctx, "Cannot read the object after its create failed", map[string]any{"kind": kind, "id": id, "error": err.Error()})
		return kernel.Progress{}, false
	}
	if !interrupted(ctx) || !progress.CanFinish {
		return progress, false
	}
	diags.AddWarning(kind+" Create Interrupted", fmt.Sprintf(
		"%s %s exists (%s) and is recorded in the state, not tainted: the next apply waits for it to finish instead of recreating it.",
		kind, id, progress.Describe()))
	return progress, true
}

// recordTimeout bounds the reads that record an object after its create
// failed or was interrupted.
const recordTimeout = 10 * time.Second

// recordContext is a context for those reads: not cancelled with the RPC
// (after an interrupt, the state must still say what was made).
func recordContext(rpcCtx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(rpcCtx), recordTimeout)
}

// timeoutsBlock is the timeouts block of the framework's timeouts package
// with this provider's check of each value in place of the package's own:
// durationValidator, the check of every duration of the provider, whose
// messages name the value and give only valid examples (the package's
// cites "-1.5h" as one, and a negative or zero timeout would end every
// wait at once).
func timeoutsBlock(ctx context.Context, opts timeouts.Opts) schema.Block {
	block, ok := timeouts.Block(ctx, opts).(schema.SingleNestedBlock)
	if !ok {
		panic("timeouts.Block is no longer a SingleNestedBlock")
	}
	attrs := make(map[string]schema.Attribute, len(block.Attributes))
	for name, a := range block.Attributes {
		if sa, ok := a.(schema.StringAttribute); ok {
			sa.Validators = []validator.String{durationValidator{}}
			a = sa
		}
		attrs[name] = a
	}
	block.Attributes = attrs
	return block
}

// existsDetail is the error of a create that found an object of its name
// that is not the one the configuration declares: what differs, and the
// terraform import command that takes it over (resourceType is the
// resource's type, gke_...).
func existsDetail(e *kernel.ExistsError, resourceType string) string {
	kind := strings.ToUpper(e.Kind[:1]) + e.Kind[1:]
	return fmt.Sprintf("%s %s already exists and is not the one this configuration declares: %s. It was neither adopted nor changed.\n\n"+
		"To manage it with this resource, import it, then make the configuration match it:\n\n  terraform import %s.<resource name> %s\n\n"+
		"(with the address of this resource, its module path and index included); or give this %s another name.",
		kind, e.ID, strings.Join(e.Differences, "; "), resourceType, e.ImportID, e.Kind)
}
