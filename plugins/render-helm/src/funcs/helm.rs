//! Helm's own checks, `required` and `fail`, and `lookup`, which asks the render's view of its destination cluster
//! (`super::lookup`; without one every lookup finds nothing, an empty map, as `helm template` has it), and
//! `getHostByName`, which answers "" as Helm (3.13 and later) does without `--enable-dns`: a render never does DNS.

use super::convert::strval;
use super::{arity, string_arg};
use crate::template::{FunctionTable, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("required", |_, a| {
        arity("required", &a, 2)?;
        match &a[1] {
            Value::Nil => Err(strval(&a[0])),
            Value::String(s) if s.is_empty() => Err(strval(&a[0])),
            value => Ok(value.clone()),
        }
    });
    table.insert("fail", |_, a| {
        arity("fail", &a, 1)?;
        Err(strval(&a[0]))
    });
    table.insert("lookup", |_, a| {
        arity("lookup", &a, 4)?;
        let api_version = string_arg(&a, 0)?;
        let kind = string_arg(&a, 1)?;
        let namespace = string_arg(&a, 2)?;
        let name = string_arg(&a, 3)?;
        Ok(super::lookup::lookup(api_version, kind, namespace, name))
    });
    // Helm replaces Sprig's DNS lookup with this unless `--enable-dns` is given; Weft has no such option.
    table.insert("getHostByName", |_, a| {
        arity("getHostByName", &a, 1)?;
        string_arg(&a, 0)?;
        Ok(Value::string(""))
    });
}

#[cfg(test)]
mod tests {
    use crate::funcs::testing::{call, s};
    use crate::template::Value;

    #[test]
    fn get_host_by_name_answers_nothing_as_helm_does_without_enable_dns() {
        assert_eq!(call("getHostByName", vec![s("example.com")]), Ok(s("")));
        assert!(call("getHostByName", vec![]).is_err());
    }

    #[test]
    fn required_refuses_nil_and_empty_strings() {
        assert_eq!(
            call("required", vec![s("need x"), Value::Nil]),
            Err("need x".into())
        );
        assert_eq!(
            call("required", vec![s("need x"), s("")]),
            Err("need x".into())
        );
        assert_eq!(
            call("required", vec![s("need x"), Value::Int(0)]),
            Ok(Value::Int(0))
        );
        assert_eq!(call("fail", vec![s("stop")]), Err("stop".into()));
        assert_eq!(
            call("lookup", vec![s("v1"), s("Secret"), s("ns"), s("x")]),
            Ok(Value::empty_map())
        );
        assert!(call("lookup", vec![s("v1"), s("Secret")]).is_err());
    }

    #[test]
    fn lookup_answers_what_the_render_s_view_has_and_an_empty_map_for_the_rest() {
        use weft_sdk::{FixedObjects, Lookup};
        let view = Lookup::new(FixedObjects::new(vec![serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "ns", "generation": 2},
            "data": {"ratio": "0.5"}, "weight": 1.5,
        })]));
        let found = crate::funcs::lookup::with_lookup(Some(view), || {
            (
                call("lookup", vec![s("v1"), s("ConfigMap"), s("ns"), s("c")]),
                call("lookup", vec![s("v1"), s("ConfigMap"), s("ns"), s("d")]),
            )
        });
        let Ok(Value::Map(object)) = found.0 else {
            panic!("a map: {:?}", found.0);
        };
        let object = object.borrow();
        let Some(Value::Map(metadata)) = object.get("metadata") else {
            panic!("metadata: {object:?}");
        };
        assert_eq!(metadata.borrow().get("generation"), Some(&Value::Int(2)));
        assert_eq!(object.get("weight"), Some(&Value::Float(1.5)));
        assert_eq!(found.1, Ok(Value::empty_map()));
        // The view is gone once the render is over.
        assert_eq!(
            call("lookup", vec![s("v1"), s("ConfigMap"), s("ns"), s("c")]),
            Ok(Value::empty_map())
        );
    }
}
