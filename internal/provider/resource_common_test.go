package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// Every timeout is checked by this provider's validator alone, whose
// messages cite only valid examples (the timeouts package's own cites
// "-1.5h" as one); TestDurationsAgree runs it on each value.
func TestTimeoutsBlockChecksEachValue(t *testing.T) {
	ctx := context.Background()
	block, ok := timeoutsBlock(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}).(schema.SingleNestedBlock)
	if !ok {
		t.Fatal("timeoutsBlock is not a SingleNestedBlock")
	}
	if len(block.Attributes) != 3 {
		t.Fatalf("attributes %v, want create, update and delete", block.Attributes)
	}
	for name, a := range block.Attributes {
		sa, ok := a.(schema.StringAttribute)
		if !ok || len(sa.Validators) != 1 {
			t.Fatalf("%s: %T with validators %v, want one durationValidator", name, a, sa.Validators)
		}
		if _, ok := sa.Validators[0].(durationValidator); !ok {
			t.Errorf("%s: validator %T, want durationValidator", name, sa.Validators[0])
		}
	}
}
