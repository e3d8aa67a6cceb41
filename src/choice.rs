//! Closed sets of named options (the compare rule, tie-breaking, a backend, a tier…): enums
//! whose values the command line, the tables and the JSON reports all spell the same lowercase
//! words. The library knows the names; the command line builds its parsers from [`Choice`].

/// An enum of named options: every value, its name and one line of help.
pub trait Choice: Copy + PartialEq + Send + Sync + 'static {
    /// Every value, in the order help texts list them.
    const ALL: &'static [Self];
    /// The value's name, as the command line and reports spell it.
    fn name(self) -> &'static str;
    /// One line saying what the value means.
    fn help(self) -> &'static str;
    /// The value called `name`, if any.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.name() == name)
    }
}

/// Every name of `C`, comma-separated, for messages that list the choices.
pub fn names<C: Choice>() -> String {
    C::ALL
        .iter()
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Defines an enum of named options with [`Choice`], `Display` (the name), `Serialize` (the
/// name as a string), `Deserialize` (from the name) and `JsonSchema` (one of the names, each
/// with its help). Each variant is written `Variant = "name"`, after its doc comment, which
/// becomes its help text.
#[macro_export]
macro_rules! choice {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[doc = $doc:literal])+
                $variant:ident = $text:literal
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[doc = $doc])+ $variant ),+
        }

        impl $crate::choice::Choice for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];
            fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
            fn help(self) -> &'static str {
                match self {
                    $($name::$variant => concat!($($doc),+).trim_ascii()),+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($crate::choice::Choice::name(*self))
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($crate::choice::Choice::name(*self))
            }
        }

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                let one_of: Vec<::serde_json::Value> = <$name as $crate::choice::Choice>::ALL
                    .iter()
                    .map(|c| ::serde_json::json!({
                        "const": $crate::choice::Choice::name(*c),
                        "description": $crate::choice::Choice::help(*c),
                    }))
                    .collect();
                ::schemars::json_schema!({ "type": "string", "oneOf": one_of })
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(d)?;
                <$name as $crate::choice::Choice>::from_name(&text).ok_or_else(|| {
                    ::serde::de::Error::custom(::std::format!(
                        "`{text}` is not one of {}",
                        $crate::choice::names::<$name>()
                    ))
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::Choice;

    crate::choice! {
        /// A test set.
        enum Fruit {
            /// A red one.
            Apple = "apple",
            /// A long
            /// yellow one.
            Banana = "banana",
        }
    }

    #[test]
    fn names_help_display_and_json_agree() {
        assert_eq!(Fruit::ALL, &[Fruit::Apple, Fruit::Banana]);
        assert_eq!(Fruit::from_name("banana"), Some(Fruit::Banana));
        assert_eq!(Fruit::from_name("Banana"), None);
        assert_eq!(Fruit::Apple.help(), "A red one.");
        assert_eq!(Fruit::Banana.help(), "A long yellow one.");
        assert_eq!(Fruit::Banana.to_string(), "banana");
        assert_eq!(serde_json::to_string(&Fruit::Apple).unwrap(), "\"apple\"");
        let back: Fruit = serde_json::from_str("\"banana\"").unwrap();
        assert_eq!(back, Fruit::Banana);
        let e = serde_json::from_str::<Fruit>("\"cherry\"").unwrap_err();
        assert!(
            e.to_string()
                .contains("`cherry` is not one of apple, banana"),
            "{e}"
        );
    }
}
