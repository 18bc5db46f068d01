"""sequence ops."""
