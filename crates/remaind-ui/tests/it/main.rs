//! The viewer's safety rules over real HTTP (no browser): each refused request changes nothing.
//! The browser suite (`cargo xtask ui-browser`) covers the pages themselves.

mod security;
