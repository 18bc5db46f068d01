"""signal ops."""
