package enginetest

import (
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

// SubBlockInMaintenance is SubBlock(name, 0, "phys-"+name) with upcoming
// maintenance of the status (PENDING, ONGOING).
func SubBlockInMaintenance(name, status string) *computepb.ReservationSubBlock {
	s := SubBlock(name, 0, "phys-"+name)
	s.ReservationSubBlockMaintenance = &computepb.GroupMaintenanceInfo{
		UpcomingGroupMaintenance: &computepb.UpcomingMaintenance{MaintenanceStatus: proto.String(status)}}
	return s
}
