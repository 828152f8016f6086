package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/day2"
)

// Actions need Terraform 1.14 or later; OpenTofu has none. Their docs
// say so, and this note is appended to every action's description.
const actionsNeedTerraform = "Actions need Terraform 1.14 or later (`action` blocks, `terraform apply -invoke=action.TYPE.NAME`, " +
	"or a resource's `lifecycle { action_trigger { ... } }`). OpenTofu and older Terraform versions do not support actions: " +
	"they reject an `action` block as an unsupported block type."

// actionContext bounds an action by its timeout attribute (def when null).
func actionContext(ctx context.Context, timeout types.String, def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc) {
	d := def
	if !timeout.IsNull() && !timeout.IsUnknown() {
		var err error
		if d, err = parseDuration(timeout.ValueString()); err != nil {
			diags.AddAttributeError(path.Root("timeout"), "Invalid Duration", durationDetail("timeout", timeout.ValueString(), err))
			return ctx, func() {}
		}
	}
	return context.WithTimeout(ctx, d)
}

// progressOf sends engine progress to Terraform's output, each message
// prefixed with the time the action has run, and logs it.
func progressOf(ctx context.Context, resp *action.InvokeResponse) day2.ProgressFunc {
	start := time.Now()
	return func(msg string) {
		tflog.Info(ctx, msg)
		if resp.SendProgress != nil {
			resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("[%s] %s", time.Since(start).Round(time.Second), msg)})
		}
	}
}

// timedOut says, for an action's error, whether its timeout ended it.
func timedOut(ctx context.Context) bool { return ctx.Err() == context.DeadlineExceeded }

// oneOfList is "`A`, `B`" for messages.
func oneOfList(values []string) string { return strings.Join(values, ", ") }

// inList says whether v is one of values.
func inList(v string, values []string) bool {
	for _, x := range values {
		if x == v {
			return true
		}
	}
	return false
}
