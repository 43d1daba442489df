"""inference: an endpoint deployed, scaled or deleted, then followed until Ready or gone."""
