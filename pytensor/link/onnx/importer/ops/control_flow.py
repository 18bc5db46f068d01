"""control_flow ops."""
