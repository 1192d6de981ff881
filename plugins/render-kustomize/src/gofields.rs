//! Field names as Go's `encoding/json` matches them when Kustomize decodes its files: a key names the field
//! spelled exactly so, else the field it equals under Unicode case folding. Keys are renamed in place before the
//! typed decoding, which then refuses what still matches no field.

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_json::{Map, Value};

/// [`fold`], then, when `lenient`, drops the keys that name no field of `T`.
pub fn fold_as<'a, T: for<'de> Deserialize<'de>>(
    value: &'a mut Value,
    lenient: bool,
) -> Option<&'a mut Map<String, Value>> {
    let map = fold::<T>(value)?;
    if lenient {
        let fields = fields_of::<T>();
        map.retain(|key, _| fields.contains(&key.as_str()));
    }
    Some(map)
}

/// Calls `f` on every item of `value` when it is a list.
pub fn each(value: &mut Value, mut f: impl FnMut(&mut Value)) {
    if let Value::Array(items) = value {
        items.iter_mut().for_each(&mut f);
    }
}

/// Renames the keys of `value` (when it is a mapping) to the fields of `T` they match, drops the fields that
/// are null, and returns the map. When two keys name one field, Go keeps the later one; here the exact spelling
/// wins, then the first folded.
pub fn fold<'a, T: for<'de> Deserialize<'de>>(
    value: &'a mut Value,
) -> Option<&'a mut Map<String, Value>> {
    let map = value.as_object_mut()?;
    let fields = fields_of::<T>();
    let renames: Vec<(String, &'static str)> = map
        .keys()
        .filter(|key| !fields.contains(&key.as_str()))
        .filter_map(|key| {
            let folded = fold_case(key);
            fields
                .iter()
                .find(|field| fold_case(field) == folded)
                .map(|field| (key.clone(), *field))
        })
        .collect();
    for (key, field) in renames {
        if let Some(item) = map.remove(&key)
            && !map.contains_key(field)
        {
            map.insert(field.to_string(), item);
        }
    }
    map.retain(|key, item| !(item.is_null() && fields.contains(&key.as_str())));
    Some(map)
}

/// A name under Go's case folding, for comparing with the ASCII field names: ASCII letters lowercased, and
/// the two non-ASCII letters that fold to ASCII ones (`ſ` to `s`, the Kelvin sign to `k`).
fn fold_case(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            'ſ' => 's',
            '\u{212A}' => 'k',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// The field names serde knows for `T` (a struct with named fields), taken from its `deserialize_struct` call.
pub fn fields_of<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Fields;
    #[derive(Debug)]
    struct Captured(&'static [&'static str]);
    impl std::fmt::Display for Captured {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "fields captured")
        }
    }
    impl std::error::Error for Captured {}
    impl de::Error for Captured {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Captured(&[])
        }
    }
    impl<'de> Deserializer<'de> for Fields {
        type Error = Captured;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Captured> {
            Err(Captured(&[]))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Captured> {
            Err(Captured(fields))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
            unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    match T::deserialize(Fields) {
        Err(Captured(fields)) => fields,
        Ok(_) => &[],
    }
}
