package enginetest

import (
	"context"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"
)

// CountingBlocks is a Compute API that counts the reads of reservation
// blocks and the lists of their sub-blocks (Compute counts the reads of
// reservations).
type CountingBlocks struct {
	*Compute
	mu                        sync.Mutex
	blockReads, subBlockLists int
}

// GetReservationBlock counts the read and answers it as Compute does.
func (c *CountingBlocks) GetReservationBlock(ctx context.Context, project, zone, reservation, block string) (*computepb.ReservationBlock, error) {
	c.mu.Lock()
	c.blockReads++
	c.mu.Unlock()
	return c.Compute.GetReservationBlock(ctx, project, zone, reservation, block)
}

// ListReservationSubBlocks counts the list and answers it as Compute does.
func (c *CountingBlocks) ListReservationSubBlocks(ctx context.Context, project, zone, reservation, block string) ([]*computepb.ReservationSubBlock, error) {
	c.mu.Lock()
	c.subBlockLists++
	c.mu.Unlock()
	return c.Compute.ListReservationSubBlocks(ctx, project, zone, reservation, block)
}

// BlockReads is how many blocks were read so far.
func (c *CountingBlocks) BlockReads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.blockReads
}

// SubBlockLists is how many sub-block lists were made so far.
func (c *CountingBlocks) SubBlockLists() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subBlockLists
}
