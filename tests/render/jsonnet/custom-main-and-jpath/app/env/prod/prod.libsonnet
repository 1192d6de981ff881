{ namespace: 'shop-prod' }
