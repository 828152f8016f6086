# By the GKE node pool ID.
terraform import gke_subblock_node_pool.sub_block_1 projects/my-project/locations/us-central1/clusters/ironwood/nodePools/train-sub-block-1
