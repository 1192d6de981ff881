//! The queue's hot queries and how the database runs them: each as its text (the same text the store runs) and its
//! query plan, so a test (and an operator) can see that none of them scans the operations table, which grows with
//! the fleet.

use sqlx::Row;

use super::{Backend, Store, StoreError};

/// One query the queue runs often, with what to bind to explain it.
struct HotQuery {
    name: &'static str,
    sql: String,
    /// Values for its parameters, in order (text; integers are written as such).
    binds: &'static [Bind],
}

#[derive(Clone, Copy)]
enum Bind {
    Text(&'static str),
    Int(i64),
}

/// A query and the plan the database chose for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryPlan {
    /// What the query is for.
    pub name: &'static str,
    /// The plan, one line per step, as the database prints it.
    pub plan: Vec<String>,
}

impl QueryPlan {
    /// Whether a step reads the whole operations table (SQLite `SCAN operations`, PostgreSQL `Seq Scan on
    /// operations`).
    pub fn scans_operations(&self) -> bool {
        self.plan.iter().any(|line| {
            let line = line.trim();
            line.contains("SCAN operations") && !line.contains("USING")
                || line.contains("Seq Scan on operations")
        })
    }
}

impl Store {
    fn hot_queries(&self) -> Vec<HotQuery> {
        let now = self.now();
        vec![
            HotQuery {
                name: "claim: the oldest pending, unclaimed operations",
                sql: super::queue::CLAIM_SELECT.to_owned(),
                binds: &[Bind::Int(1)],
            },
            HotQuery {
                name: "claim: the fleet's running operations",
                sql: super::queue::running_count(self.backend),
                binds: &[],
            },
            HotQuery {
                name: "queue depth",
                sql: super::records::PENDING_COUNT.to_owned(),
                binds: &[],
            },
            HotQuery {
                name: "requeue: claims whose lease ran out",
                sql: super::queue::expired_select(self.backend),
                binds: &[],
            },
            HotQuery {
                name: "release: a replica's claims",
                sql: super::queue::REPLICA_SELECT.to_owned(),
                binds: &[Bind::Text("replica"), Bind::Text("incarnation")],
            },
            HotQuery {
                name: "enqueue: the app's unfinished operation",
                sql: super::queue::UNFINISHED_SELECT.to_owned(),
                binds: &[Bind::Text("app")],
            },
            HotQuery {
                name: "an app's newest operations",
                sql: super::records::APP_OPERATIONS.to_owned(),
                binds: &[Bind::Text("app"), Bind::Int(10)],
            },
            HotQuery {
                name: "prune: an app's finished operations beyond its history",
                sql: super::records::prune_delete(now),
                binds: &[Bind::Text("app"), Bind::Int(600_000), Bind::Int(10)],
            },
        ]
    }

    /// The plan of each of the queue's hot queries. On PostgreSQL sequential scans are switched off for the
    /// explanation, so a plan that still scans the table shows that no index serves the query (on a small table
    /// the planner would rightly prefer a scan).
    pub async fn query_plans(&self) -> Result<Vec<QueryPlan>, StoreError> {
        let mut plans = Vec::new();
        let mut transaction = self.pool.begin().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("SET LOCAL enable_seqscan = off")
                .execute(&mut *transaction)
                .await?;
        }
        for query in self.hot_queries() {
            let explain = match self.backend {
                Backend::Sqlite => format!("EXPLAIN QUERY PLAN {}", query.sql),
                Backend::Postgres => format!("EXPLAIN {}", query.sql),
            };
            let mut statement = sqlx::query(&explain);
            for bind in query.binds {
                statement = match bind {
                    Bind::Text(text) => statement.bind(*text),
                    Bind::Int(number) => statement.bind(*number),
                };
            }
            let rows = statement.fetch_all(&mut *transaction).await?;
            let plan = rows
                .iter()
                .map(|row| match self.backend {
                    Backend::Sqlite => row.try_get::<String, _>("detail"),
                    Backend::Postgres => row.try_get::<String, _>(0),
                })
                .collect::<Result<Vec<String>, _>>()?;
            plans.push(QueryPlan {
                name: query.name,
                plan,
            });
        }
        transaction.rollback().await?;
        Ok(plans)
    }
}
