//! Apache Solr operator (`solr.apache.org`): a SolrCloud lists its nodes in `status.solrNodes`, each with a
//! `ready` flag. Nothing in its status says it failed, so it is never degraded.

use weft_sdk::{Health, Object};

use crate::lua::{is_set, truthy};

/// A SolrCloud: healthy once every node is ready.
pub(crate) fn solr_cloud(obj: &Object) -> Health {
    if !is_set(obj, "status.solrNodes") {
        return Health::progressing("Waiting for solr to exist");
    }
    if obj
        .array("status.solrNodes")
        .iter()
        .all(|node| truthy(node.get("ready")))
    {
        Health::healthy("Solr is ready")
    } else {
        Health::progressing("Not all replicas are ready")
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn a_node_not_ready_is_progressing() {
        let yaml = "apiVersion: solr.apache.org/v1beta1\nkind: SolrCloud\nmetadata: {name: s}\nstatus:\n  \
                    solrNodes: [{name: a, ready: true}, {name: b, ready: false}]";
        let h = assess_yaml::<DataHealth>(yaml).unwrap().unwrap();
        assert_eq!(h, Health::progressing("Not all replicas are ready"));
    }
}
