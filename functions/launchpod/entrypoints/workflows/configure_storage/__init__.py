"""configure-storage: a Mountpoint for S3 or FSx for Lustre volume and its claim, applied and Bound."""
