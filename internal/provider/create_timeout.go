package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// The error of a create that its own timeout (timeouts.create, or the
// default) ended once its object existed (issue 56). The object is in the
// state, set before the error, which Terraform marks tainted; the error
// says which timeout ran out, what the create waited for and how it last
// stood (the engine's error), where the object stands now, and what
// `terraform destroy` and the next apply do with it.

// timedOutCreate is where an object stands whose create its timeout
// ended.
type timedOutCreate struct {
	// object names it as the user reads it ("Node pool projects/…").
	object string
	// stands is where it stands, after object: "exists (PROVISIONING)".
	stands string
	// keep is what follows a `terraform untaint` of its resource instead
	// of the replacement; "" when untainting keeps nothing worth saying.
	keep string
	// plural: object names several objects ("The Kueue objects of q").
	plural bool
}

// addCreateTimedOut adds err, the error of a create that its timeout
// (handlerCall.timeout) ended after the object t was made and recorded in
// the state, for subject s: the row's summary when err has one ("Kueue
// ClusterQueue Not Active"), else "<noun> Create Timed Out".
func addCreateTimedOut(diags *diag.Diagnostics, err error, s subject, timeout string, t timedOutCreate) {
	d, _ := errorShown(err, s, shown{summary: s.noun + " Create Timed Out"})
	diags.Append(d.then(createTimedOutDetail(timeout, t)).diagnostic(false))
}

// createTimedOutDetail is what a timed-out create means for the object t.
func createTimedOutDetail(timeout string, t timedOutCreate) string {
	is, it := "is", "it"
	if t.plural {
		is, it = "are", "them"
	}
	detail := fmt.Sprintf("The create did not finish within its timeout (%s). %s %s and %s recorded in the state, tainted: "+
		"`terraform destroy` deletes %s, and the next apply replaces %s (deletes %s and creates %s again).", timeout, t.object, t.stands, is, it, it, it, it)
	if t.keep != "" {
		detail += fmt.Sprintf(" To keep %s instead, run `terraform untaint` on this resource: %s.", it, t.keep)
	}
	return detail
}

// existsAs is "exists (state)", or "exists" when the state is unknown.
func existsAs(state string) string {
	if state == "" {
		return "exists"
	}
	return "exists (" + state + ")"
}
