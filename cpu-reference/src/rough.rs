//! Placeholder: filled by the owner of this module.
