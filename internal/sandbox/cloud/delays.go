package cloud

import "time"

// Delay is one of the emulated cloud's timed waits: a delay its faults
// inject, or how long hosts stay faulty or in maintenance.
type Delay struct {
	// Kind is what waits: one of the Delay* kinds.
	Kind string
	// Of names what waits: the operation (DelayOperation), the pool
	// (DelayNodes), the slice (DelaySliceActivation), the sub-block as
	// "reservation/block/sub-block" (DelayRepair), the target of the
	// performMaintenance operation (DelayMaintenance), the request as
	// "api METHOD path" (DelayLatency), or the held operation as
	// "api name" (DelayHold).
	Of string
	// For is how long, as the faults (or their defaults) say.
	For time.Duration
}

// The kinds of Delay.
const (
	// DelayLatency holds an API request before it is served
	// (APIFaults.LatencyMs).
	DelayLatency = "latency"
	// DelayOperation holds a long-running operation's work
	// (Faults.OperationDelayMs).
	DelayOperation = "operation"
	// DelayNodes holds a new pool's Nodes after its create operation is
	// done (Faults.NodeProvisionDelayMs).
	DelayNodes = "nodes"
	// DelaySliceActivation holds a Slice in ACTIVATING
	// (Faults.SliceActivationDelayMs).
	DelaySliceActivation = "slice activation"
	// DelayRepair holds hosts reported faulty UNHEALTHY until their repair
	// (Faults.FaultyRepairMs).
	DelayRepair = "repair"
	// DelayMaintenance holds started maintenance ONGOING until it ends
	// (Faults.MaintenanceMs).
	DelayMaintenance = "maintenance"
	// DelayHold holds an operation RUNNING in the answers until its hold
	// ends (APIFaults.HoldOperationsMs).
	DelayHold = "hold"
)

// After runs then once the delay d is over: through Schedule when it is
// set, else on a timer of d.For (time.AfterFunc, in a goroutine of its
// own). Callers hold no lock of the world.
func (w *World) After(d Delay, then func()) {
	if w.Schedule != nil {
		w.Schedule(d, then)
		return
	}
	time.AfterFunc(d.For, then)
}

// Wait returns once the delay d is over (After, waited for).
func (w *World) Wait(d Delay) {
	over := make(chan struct{})
	w.After(d, func() { close(over) })
	<-over
}
