//! The secrets `remaind demo` plants in its session; shared with the tests that check none
//! of their bytes reach a file.

/// The secrets planted in the session. None of their bytes may reach any file under
/// `.context/`.
pub(crate) const PLANTED_SECRETS: [&str; 3] = [
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "sk-proj-RemaindDemoPlantedKey0123456789abcdefXYZ",
];
