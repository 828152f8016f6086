package cloud

import "time"

// The World is the slice controller's cloud (slicecontroller.Cloud): it
// places partitions and holds the faults the controller honours.

// PartitionPlace is the reservation and the block ("reservation/block")
// of the sub-block that holds the partition, and whether one does.
func (w *World) PartitionPlace(id string) (reservation, block string, ok bool) {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	sb := w.SubBlockByPartition(id)
	if sb == nil {
		return "", "", false
	}
	return sb.Reservation, sb.Reservation + "/" + sb.Block, true
}

// SliceActivationDelay is how long a Slice stays ACTIVATING
// (Faults.SliceActivationDelayMs).
func (w *World) SliceActivationDelay() time.Duration {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	return time.Duration(w.Faults.SliceActivationDelayMs) * time.Millisecond
}

// AfterActivation calls then once the slice has stayed ACTIVATING for
// delay (a DelaySliceActivation, through After).
func (w *World) AfterActivation(slice string, delay time.Duration, then func()) {
	w.After(Delay{Kind: DelaySliceActivation, Of: slice, For: delay}, then)
}

// TakeFormationFailure reports whether a slice formation failure is to be
// injected (Faults.FailSliceFormations), and counts it off.
func (w *World) TakeFormationFailure() bool {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	if w.Faults.FailSliceFormations <= 0 {
		return false
	}
	w.Faults.FailSliceFormations--
	return true
}

// HoldSliceFinalizers reports whether the slice controller keeps the
// finalizers of deleted Slices (Faults.HoldSliceFinalizers).
func (w *World) HoldSliceFinalizers() bool {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	return w.Faults.HoldSliceFinalizers
}
