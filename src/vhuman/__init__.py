"""vhuman: virtual humans."""
